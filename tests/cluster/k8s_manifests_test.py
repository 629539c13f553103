#!/usr/bin/env python3
"""The Kubernetes manifests in scripts/k8s cannot be applied here (no cluster), so this checks what
can be checked without one:

  1. every YAML document parses and has apiVersion, kind and metadata.name;
  2. the sweep is an Indexed Job whose command slices with --shard from JOB_COMPLETION_INDEX
     (+1: lbsim numbers shards 1..N) into N == completions, with --resume, writing under a mount
     of the shared PersistentVolumeClaim (ReadWriteMany); the merge Job runs `lbsim merge` on that
     same folder and claim;
  3. with an lbsim binary given: the two Jobs' shell commands run here, pod by pod with
     JOB_COMPLETION_INDEX = 0..N-1 and the mount path pointing at a temporary folder (the grid's
     operations shrunk to stay quick), and the merged sweep.json is byte-identical to a local
     `lbsim sweep` of the same grid.

    tests/cluster/k8s_manifests_test.py SOURCE_DIR [LBSIM]     (exit 0 pass, 1 fail)
"""
import filecmp
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import yaml

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
    return cond


def container_script(job):
    spec = job["spec"]["template"]["spec"]
    containers = spec.get("containers") or []
    check(len(containers) == 1, f"job/{job['metadata']['name']}: expected one container")
    c = containers[0]
    words = list(c.get("command") or []) + list(c.get("args") or [])
    # ["/bin/sh", "-c", SCRIPT]: the script is what the pod runs.
    check(words[:2] == ["/bin/sh", "-c"] and len(words) == 3,
          f"job/{job['metadata']['name']}: command + args should be /bin/sh -c SCRIPT, got {words}")
    return c, spec, words[-1]


def claim_mounts(c, spec):
    """{mountPath: claimName} of the container's PersistentVolumeClaim mounts."""
    claims = {v["name"]: v["persistentVolumeClaim"]["claimName"]
              for v in spec.get("volumes", []) if "persistentVolumeClaim" in v}
    return {m["mountPath"]: claims[m["name"]] for m in c.get("volumeMounts", []) if m["name"] in claims}


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    source = os.path.abspath(argv[1])
    lbsim = os.path.abspath(argv[2]) if len(argv) > 2 else None
    files = sorted(glob.glob(os.path.join(source, "scripts", "k8s", "*.yaml")))
    check(files, "no YAML files in scripts/k8s")
    docs = []
    for f in files:
        with open(f) as fh:
            for d in yaml.safe_load_all(fh):
                if d is None:
                    continue
                name = os.path.basename(f)
                check(isinstance(d, dict) and d.get("apiVersion") and d.get("kind") and d.get("metadata", {}).get("name"),
                      f"{name}: a document without apiVersion, kind or metadata.name")
                docs.append(d)
    pvcs = [d for d in docs if d["kind"] == "PersistentVolumeClaim"]
    jobs = [d for d in docs if d["kind"] == "Job"]
    check(all(j["apiVersion"] == "batch/v1" for j in jobs), "Jobs must be batch/v1")
    check(len(pvcs) == 1, f"expected one PersistentVolumeClaim, found {len(pvcs)}")
    indexed = [j for j in jobs if j["spec"].get("completionMode") == "Indexed"]
    merges = [j for j in jobs if j not in indexed]
    if not (check(len(indexed) == 1, f"expected one Indexed Job, found {len(indexed)}")
            and check(len(merges) == 1, f"expected one merge Job, found {len(merges)}") and pvcs):
        return report()
    pvc, sweep, merge = pvcs[0], indexed[0], merges[0]
    claim = pvc["metadata"]["name"]
    check("ReadWriteMany" in pvc["spec"].get("accessModes", []), "the claim must be ReadWriteMany (pods on several nodes)")

    # The sweep Job.
    n = sweep["spec"].get("completions")
    check(isinstance(n, int) and n >= 1, f"completions must be a positive integer, got {n!r}")
    p = sweep["spec"].get("parallelism", 1)
    check(isinstance(p, int) and 1 <= p <= n, f"parallelism {p!r} must be within 1..completions ({n})")
    c, spec, script = container_script(sweep)
    check(spec.get("restartPolicy") in ("Never", "OnFailure"), "a Job's restartPolicy must be Never or OnFailure")
    check(re.match(r"^exec lbsim sweep ", script), f"the sweep pod should exec lbsim sweep: {script}")
    m = re.search(r'--shard "\$\(\(JOB_COMPLETION_INDEX \+ 1\)\)/(\d+)"', script)
    check(m and int(m.group(1)) == n,
          f'the sweep must pass --shard "$((JOB_COMPLETION_INDEX + 1))/{n}" (N == completions): {script}')
    check(" --resume" in script, "the sweep pods must run with --resume (a retried pod keeps finished runs)")
    words = shlex.split(script)
    out = words[words.index("--out") + 1] if "--out" in words else ""
    mounts = claim_mounts(c, spec)
    mount = next((mp for mp in mounts if out.startswith(mp.rstrip("/") + "/")), None)
    check(mount and mounts[mount] == claim, f"--out {out!r} must be on a mount of the claim {claim!r}: {mounts}")
    scenario = words[3] if len(words) > 3 else ""
    check(os.path.isfile(os.path.join(source, scenario)) and c.get("workingDir") == "/opt/lbsim",
          f"the scenario {scenario!r} must be a file of the repository, relative to workingDir /opt/lbsim (the image's copy)")

    # The merge Job.
    mc, mspec, mscript = container_script(merge)
    mwords = shlex.split(mscript)
    check(mwords[:3] == ["exec", "lbsim", "merge"], f"the merge Job must exec lbsim merge: {mscript}")
    oflag = "--out" if "--out" in mwords else "-o"
    check(out in mwords[3:] and oflag in mwords and mwords[mwords.index(oflag) + 1].startswith(out.rstrip("/") + "/"),
          f"the merge must read {out!r} and write into it (--out FILE): {mscript}")
    check(claim_mounts(mc, mspec).get(mount) == claim, f"the merge Job must mount the claim {claim!r} at {mount!r}")
    if FAILURES or not lbsim:
        return report()

    # 3. Run both Jobs' commands here, pod by pod.
    quick = " --set workload.ops=3000 --set workload.warmup_ops=0"
    tmp = tempfile.mkdtemp(prefix="lbsim-k8s.")
    try:
        bindir = os.path.join(tmp, "bin")
        os.makedirs(bindir)
        os.symlink(lbsim, os.path.join(bindir, "lbsim"))
        mnt = os.path.join(tmp, "mnt")
        def here(text):  # the mount path, where it starts a word, becomes the temporary folder
            return re.sub(r"(?<=[\s\"'])" + re.escape(mount.rstrip("/")) + "/", mnt + "/", text)

        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
        for k in range(n):
            r = subprocess.run(["/bin/sh", "-c", here(script) + quick], cwd=source,
                               env=dict(env, JOB_COMPLETION_INDEX=str(k)), capture_output=True, text=True)
            check(r.returncode == 0, f"pod {k} exited {r.returncode}: {r.stderr}")
        r = subprocess.run(["/bin/sh", "-c", here(mscript)], cwd=source, env=env,
                           capture_output=True, text=True)
        check(r.returncode == 0, f"the merge pod exited {r.returncode}: {r.stderr}")
        # The same grid on one machine: the sweep's words without the slicing ones.
        local, skip = [], 0
        for w in words[3:]:
            if skip:
                skip -= 1
            elif w in ("--shard", "--out", "--jobs"):
                skip = 1
            elif w not in ("--resume", "--quiet"):
                local.append(w)
        ref = os.path.join(tmp, "local")
        r = subprocess.run([lbsim, "sweep"] + local + shlex.split(quick) + ["--out", ref, "--jobs", "2", "--quiet"],
                           cwd=source, capture_output=True, text=True)
        check(r.returncode == 0, f"the local sweep exited {r.returncode}: {r.stderr}")
        merged = os.path.join(mnt, os.path.relpath(out, mount), "sweep.json")
        if not FAILURES:
            check(filecmp.cmp(merged, os.path.join(ref, "sweep.json"), shallow=False),
                  "the merged sweep.json of the Jobs' commands differs from the local sweep's")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report(f"; the {n} pods' and the merge's commands, run here, give the local sweep.json")


def report(extra=""):
    for f in FAILURES:
        print(f"k8s_manifests_test: FAIL: {f}", file=sys.stderr)
    if FAILURES:
        return 1
    print(f"k8s_manifests_test: PASS: scripts/k8s parses, Indexed Job + merge Job + shared claim are consistent{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
