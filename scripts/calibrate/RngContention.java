/*
 * RngContention: calibration microbenchmark for lbsim's client model.
 *
 * The Cassandra Java driver's TokenAwarePolicy (RANDOM ordering) shuffles the replica list of every
 * request, Collections.shuffle(replicas, rnd): for 3 replicas that is 2 draws (nextInt(3), nextInt(2)).
 * When rnd is one java.util.Random shared by all request threads, its seed is a single cache line
 * updated by compare-and-swap. lbsim models it as a critical section visited by the client cores:
 * a draw costs shared_draw_ns when the line is already in the core's cache, plus line_transfer_ns
 * when another core held it last; a ThreadLocalRandom draw costs thread_local_draw_ns and never
 * contends. This program measures those three parameters and checks the model against a
 * measurement of shuffles of 3 separated by real work, as request threads do.
 *
 * On a VM the host may move the two vCPUs between nearby and distant physical cores while the
 * program runs, which changes every contended figure; pingpong_handoff_ns tells which case a run
 * (mostly) saw. The figures also need an idle machine: other load is reported on stderr.
 *
 * A figure is only a measurement when its threads ran the whole time: each thread's CPU time is
 * compared with its wall time in every repetition, and a repetition where any thread got less than
 * --min-cpu-ratio (0.95) of the wall clock (preempted, throttled, sharing its core) does not count.
 * A figure with fewer than half its repetitions valid is printed as null, the parameters derived
 * from it too, and the program exits with status 3: it refuses to give defaults from it.
 *
 * Threads are pinned to two CPUs of the allowed set with taskset(1) when it is available (each
 * thread pins its own Linux thread id), so the two threads of a phase never share a core. On a VM
 * that pins vCPUs, not the host's physical cores; pingpong_handoff_ns still says which it was.
 *
 * Usage: java RngContention [--quick] [--min-cpu-ratio R]
 *        (a single JSON object on stdout; progress on stderr; exit 3 when a default is invalid)
 */
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.*;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.ThreadLocalRandom;

public class RngContention {
    static final Random SHARED = new Random(42);
    static volatile boolean stop;  // ends the two-thread phases
    static volatile long sink;     // every result is folded in here so the JIT cannot drop the work

    static int reps = 7;
    static double scale = 1.0;     // --quick: durations x0.2
    static final long OUTLIER_NS = 2_000;
    static double minCpuRatio = 0.95;
    static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

    // ---- pinning ------------------------------------------------------------------------------
    static boolean taskset;                 // taskset(1) found
    static int[] cpus = {-1, -1};           // the two CPUs the threads are pinned to
    static volatile boolean pinFailed;
    static final ThreadLocal<Integer> SLOT = ThreadLocal.withInitial(() -> 0);  // a pair's thread: 0 or 1

    /** The process's allowed CPUs (/proc/self/status Cpus_allowed_list), or an empty list. */
    static List<Integer> allowedCpus() {
        List<Integer> out = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (!line.startsWith("Cpus_allowed_list:")) continue;
                for (String part : line.substring(line.indexOf(':') + 1).trim().split(",")) {
                    String[] ab = part.split("-");
                    int a = Integer.parseInt(ab[0].trim()), b = ab.length > 1 ? Integer.parseInt(ab[1].trim()) : a;
                    for (int c = a; c <= b; c++) out.add(c);
                }
            }
        } catch (Exception e) { out.clear(); }
        return out;
    }

    static boolean run(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0;
        } catch (Exception e) { return false; }
    }

    /** Pins the calling thread to cpus[slot] (no-op without taskset). */
    static void pin(int slot) {
        if (!taskset) return;
        try {
            String tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
            if (!run("taskset", "-pc", String.valueOf(cpus[slot]), tid)) pinFailed = true;
        } catch (Exception e) { pinFailed = true; }
    }

    // ---- validity -----------------------------------------------------------------------------
    /** CPU time / wall time of one thread over a measured region. */
    static final class Clock {
        final long cpu0 = MX.getCurrentThreadCpuTime(), wall0 = System.nanoTime();
        double ratio() {
            long wall = System.nanoTime() - wall0;
            return wall <= 0 ? 1 : (MX.getCurrentThreadCpuTime() - cpu0) / (double) wall;
        }
    }

    /** The lowest CPU/wall ratio of the threads of the repetition just measured. */
    static double lastRatio = 1;

    /** A measured figure: its repetitions, each with its lowest thread CPU/wall ratio. */
    static final class Figure {
        final String name;
        final double[] values, ratios;
        int valid;
        double median = Double.NaN, minRatio = Double.POSITIVE_INFINITY;
        Figure(String name, int n) { this.name = name; values = new double[n]; ratios = new double[n]; }
        boolean ok() { return !Double.isNaN(median); }
        Double value() { return ok() ? median : null; }
    }

    static final List<Figure> FIGURES = new ArrayList<>();

    /** One draw of nextInt(3), as the first swap of a shuffle of 3 does. */
    static int draw(boolean tl) {
        return tl ? ThreadLocalRandom.current().nextInt(3) : SHARED.nextInt(3);
    }

    static Random rng(boolean tl) { return tl ? ThreadLocalRandom.current() : SHARED; }

    /** a, b: one thread, ns per draw over n draws. */
    static double single(boolean tl, int n) {
        int x = 0;
        Clock c = new Clock();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) x ^= draw(tl);  // int counter: a counted loop for C2
        long t1 = System.nanoTime();
        lastRatio = c.ratio();
        sink += x;
        return (t1 - t0) / (double) n;
    }

    /** A thread's share of a two-thread phase: runs until `stop`, returns its figure. */
    interface Worker { double run(); }

    /** Starts two copies of w together, stops them after durMs, returns the mean of their figures. */
    static double pair(long durMs, Worker w) throws Exception {
        stop = false;
        CyclicBarrier start = new CyclicBarrier(3);
        double[] out = new double[2], ratio = new double[2];
        Thread[] ts = new Thread[2];
        for (int k = 0; k < 2; k++) {
            final int id = k;
            ts[k] = new Thread(() -> {
                pin(id);
                SLOT.set(id);
                try { start.await(); } catch (Exception e) { throw new RuntimeException(e); }
                Clock c = new Clock();
                out[id] = w.run();
                ratio[id] = c.ratio();
            });
            ts[k].start();
        }
        start.await();
        Thread.sleep(durMs);
        stop = true;
        for (Thread t : ts) t.join();
        lastRatio = Math.min(ratio[0], ratio[1]);
        return (out[0] + out[1]) / 2;
    }

    static volatile long baton;    // the line passed back and forth by pingPong

    /**
     * Diagnostic, not a model parameter: one-way latency of handing a cache line to the other core
     * (two threads take turns incrementing `baton`). On a VM it shows where the host placed the two
     * vCPUs; the contention figures below are only comparable between runs with similar values.
     */
    static double pingPong(long handoffs) throws InterruptedException {
        baton = 0;
        double[] otherRatio = {1};
        Thread other = new Thread(() -> {
            pin(1);
            Clock c = new Clock();
            for (long i = 1; i < handoffs; i += 2) { while (baton != i) Thread.onSpinWait(); baton = i + 1; }
            otherRatio[0] = c.ratio();
        });
        other.start();
        Clock c = new Clock();
        long t0 = System.nanoTime();
        for (long i = 0; i < handoffs; i += 2) { while (baton != i) Thread.onSpinWait(); baton = i + 1; }
        double r = c.ratio();  // the main thread may start first and spin while `other` starts
        other.join();
        lastRatio = Math.min(r, otherRatio[0]);
        return (System.nanoTime() - t0) / (double) handoffs;
    }

    /** c: both threads draw in a tight loop; ns per draw of this thread. */
    static Worker tight(boolean tl) {
        return () -> {
            long n = 0;
            int x = 0;
            long t0 = System.nanoTime();
            while (!stop) { x ^= draw(tl); n++; }
            long t1 = System.nanoTime();
            sink += x;
            return (t1 - t0) / (double) n;
        };
    }

    /**
     * d: each iteration spins workUs of busy work, then shuffles a thread-own list of 3. Only the
     * shuffle is timed; the cost of an empty timed region (a nanoTime pair), measured in the same
     * iteration, is subtracted. Returns mean ns per shuffle of this thread. Iterations where a timed
     * region exceeds OUTLIER_NS are dropped: a shuffle of 3 takes tens of ns, so such a region was
     * hit by an interrupt, a preemption or a safepoint, and one of them would skew the mean.
     */
    static Worker shuffleWithWork(boolean tl, long workUs) {
        return () -> {
            List<Integer> list = new ArrayList<>(List.of(0, 1, 2));
            long workNs = workUs * 1000, n = 0, timed = 0, empty = 0, acc = 1;
            while (!stop) {
                long end = System.nanoTime() + workNs;
                while (System.nanoTime() < end) acc = acc * 6364136223846793005L + 1442695040888963407L;
                long e0 = System.nanoTime(), e1 = System.nanoTime();
                long s0 = System.nanoTime();
                Collections.shuffle(list, rng(tl));
                long s1 = System.nanoTime();
                if (s1 - s0 > OUTLIER_NS || e1 - e0 > OUTLIER_NS) continue;  // interrupted: not a shuffle
                timed += s1 - s0;
                empty += e1 - e0;
                n++;
            }
            sink += acc + list.get(0);
            return (timed - empty) / (double) n;
        };
    }

    interface Measure { double run() throws Exception; }

    /** Median of `reps` repetitions. */
    /**
     * Median of the valid ones of `reps` repetitions (a repetition is valid when every thread of it
     * had at least minCpuRatio of the wall clock); NaN when fewer than half are valid.
     */
    static Figure median(String what, Measure m) throws Exception {
        Figure f = new Figure(what, reps);
        List<Double> ok = new ArrayList<>();
        for (int i = 0; i < reps; i++) {
            lastRatio = 1;
            f.values[i] = m.run();
            f.ratios[i] = lastRatio;
            f.minRatio = Math.min(f.minRatio, lastRatio);
            if (lastRatio >= minCpuRatio) ok.add(f.values[i]);
        }
        f.valid = ok.size();
        Collections.sort(ok);
        int n = ok.size();
        if (2 * n >= reps && n > 0) f.median = n % 2 == 1 ? ok.get(n / 2) : (ok.get(n / 2 - 1) + ok.get(n / 2)) / 2;
        System.err.printf(Locale.ROOT, "%-32s median %8.2f  (%d of %d repetitions valid, lowest CPU/wall %.3f)%n",
                          what, f.median, n, reps, f.minRatio);
        FIGURES.add(f);
        return f;
    }

    // ---- compare-and-swap diagnostics -----------------------------------------------------------
    /**
     * The generator of java.util.Random as its Javadoc specifies it (the 48-bit linear congruence
     * seed = (seed * 0x5DEECE66D + 0xB) mod 2^48, next(31) the top 31 bits, nextInt(bound) by
     * rejection), kept in one AtomicLong updated by compare-and-swap as java.util.Random does, with
     * the last drawing thread's id in the bits above the seed: the line that moves is the same one,
     * and each thread counts its failed swaps and the draws that found the other thread's id (a
     * hand-off of the line between the two cores).
     */
    static final AtomicLong COUNTED = new AtomicLong(42 ^ 0x5DEECE66DL);

    static final class CasCount { long draws, failed, handoffs; }

    static Worker counting(CasCount[] counts) {
        return () -> {
            int id = SLOT.get();
            long mask = (1L << 48) - 1, me = (long) id << 48, x = 0, draws = 0, failed = 0, handoffs = 0;
            long t0 = System.nanoTime();
            while (!stop) {
                int r;
                while (true) {  // nextInt(3): next(31), rejection as the Javadoc gives it
                    long old, seed;
                    do {
                        old = COUNTED.get();
                        seed = ((old & mask) * 0x5DEECE66DL + 0xBL) & mask;
                        if (COUNTED.compareAndSet(old, seed | me)) break;
                        failed++;
                    } while (true);
                    if ((old & ~mask) != me) handoffs++;
                    int u = (int) (seed >>> 17);
                    r = u % 3;
                    if (u - r + 2 >= 0) break;
                }
                x ^= r;
                draws++;
            }
            long t1 = System.nanoTime();
            sink += x;
            CasCount c = new CasCount();
            c.draws = draws; c.failed = failed; c.handoffs = handoffs;
            counts[id] = c;
            return (t1 - t0) / (double) draws;
        };
    }

    static long ms(double full) { return Math.max(20, Math.round(full * scale)); }

    static String cpuName() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo")))
                if (line.startsWith("model name")) return line.substring(line.indexOf(':') + 1).trim();
        } catch (Exception e) { /* not Linux: fall through */ }
        return System.getProperty("os.arch");
    }

    /** {busy, total} jiffies of all CPUs (steal counts as busy), or null when not on Linux. */
    static long[] cpuJiffies() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length; i++) total += Long.parseLong(f[i]);
            return new long[] {total - Long.parseLong(f[4]) - Long.parseLong(f[5]), total};
        } catch (Exception e) { return null; }
    }

    static String str(String s) { return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"'; }
    static String num(double d) { return String.format(Locale.ROOT, "%.2f", d); }

    static String val(Double d) { return d == null ? "null" : num(d); }

    public static void main(String[] args) throws Exception {
        List<String> argv = Arrays.asList(args);
        if (argv.contains("--quick")) { reps = 3; scale = 0.2; }
        int at = argv.indexOf("--min-cpu-ratio");
        if (at >= 0) minCpuRatio = Double.parseDouble(argv.get(at + 1));
        int draws = (int) Math.round(20_000_000 * scale);  // ~0.1 s per single-thread repetition
        long[] works = {50, 140};

        // Pinning: two CPUs of the allowed set, when taskset(1) runs.
        List<Integer> allowed = allowedCpus();
        taskset = allowed.size() >= 2 && run("taskset", "-V");
        if (taskset) { cpus[0] = allowed.get(0); cpus[1] = allowed.get(1); }
        pin(0);  // the main thread runs the one-thread phases

        // Warm-up (~1.3 s at full scale): every kernel, both generators, so the JIT has compiled them.
        long[] jiffies0 = cpuJiffies();
        System.err.println("warm-up");
        pingPong(draws / 10);
        for (boolean tl : new boolean[] {true, false}) {
            single(tl, draws);
            pair(ms(250), tight(tl));
            pair(ms(300), shuffleWithWork(tl, works[0]));
        }

        Figure tlDraw = median("thread_local_draw_ns", () -> single(true, draws));
        Figure shDraw = median("shared_draw_ns", () -> single(false, draws));
        Figure shTight = median("shared_tight_2threads", () -> pair(ms(500), tight(false)));
        Figure tlTight = median("thread_local_tight_2threads", () -> pair(ms(500), tight(true)));
        Figure handoff = median("pingpong_handoff_ns", () -> pingPong(draws / 10));
        // Failed compare-and-swaps and hand-offs per draw in the same tight loop (counted, so timed
        // apart from shared_tight_2threads).
        CasCount[] counts = new CasCount[2];
        long[] cas = new long[3];  // draws, failed, hand-offs over the valid repetitions
        Figure casTight = median("cas_tight_2threads", () -> {
            double v = pair(ms(500), counting(counts));
            if (lastRatio >= minCpuRatio)
                for (CasCount c : counts) { cas[0] += c.draws; cas[1] += c.failed; cas[2] += c.handoffs; }
            return v;
        });
        Figure[][] shuf = new Figure[works.length][2];  // [work][0 = shared, 1 = thread-local]
        for (int w = 0; w < works.length; w++)
            for (int t = 0; t < 2; t++) {
                final long work = works[w];
                final boolean tl = t == 1;
                shuf[w][t] = median("shuffle3 work=" + work + (tl ? " tlr" : " shared"),
                                    () -> pair(ms(800), shuffleWithWork(tl, work)));
            }

        List<String> invalid = new ArrayList<>();
        for (Figure f : FIGURES)
            if (!f.ok())
                invalid.add(f.name + ": " + f.valid + " of " + reps + " repetitions had every thread on its CPU >= "
                            + num(minCpuRatio) + " of the time (lowest " + String.format(Locale.ROOT, "%.3f", f.minRatio) + ")");
        Double handoffsPerDraw = casTight.ok() && cas[0] > 0 ? cas[2] / (double) cas[0] : null;
        Double failedPerDraw = casTight.ok() && cas[0] > 0 ? cas[1] / (double) cas[0] : null;

        // Critical-section model: in a tight loop the two threads alternate ownership of the seed's
        // line, so each thread's draw cycle is its own draw plus the other's, each paying a transfer:
        // 2 * (shared_draw_ns + line_transfer_ns) = shared_tight_2threads_ns_per_draw. The counted
        // hand-offs (handoffs_per_draw) show the threads do not strictly alternate (0.17 of draws on
        // an idle 2-vCPU EPYC VM), yet dividing by them gave 110 ns against a shuffle cross-check of
        // 17 ns, while this derivation gave 18 ns: the time between hand-offs is spent waiting for
        // the line (failed swaps, stalled loads), not drawing. So they are reported, not used.
        Double lineTransfer = null;
        if (shTight.ok() && shDraw.ok()) {
            double lt = shTight.median / 2 - shDraw.median;
            if (lt < 0) invalid.add("line_transfer_ns: negative (" + num(lt) + "): the two-thread loop was faster than one thread's draws");
            else lineTransfer = lt;
        }
        // A shared shuffle of 3 after real work finds the line last held by the other core: one
        // transfer (the second draw hits the now-local line), plus 2 draws at the shared premium.
        Double modelExtra = lineTransfer != null && tlDraw.ok() ? lineTransfer + 2 * (shDraw.median - tlDraw.median) : null;
        Double measuredExtra = null;
        if (shuf[0][0].ok() && shuf[0][1].ok()) {
            double m = shuf[0][0].median - shuf[0][1].median;
            if (m < 0) invalid.add("measured_shuffle3_extra_ns: negative (" + num(m) + "): below this run's noise");
            else measuredExtra = m;
        }

        Map<String, String> json = new LinkedHashMap<>();
        json.put("cpu", str(cpuName()));
        json.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
        json.put("jdk", str(System.getProperty("java.vm.name") + " " + System.getProperty("java.version")));
        json.put("date", str(LocalDate.now(ZoneOffset.UTC).toString()));
        json.put("reps", String.valueOf(reps));
        json.put("pinned", taskset && !pinFailed ? "[" + cpus[0] + ", " + cpus[1] + "]" : "null");
        json.put("min_cpu_ratio", num(minCpuRatio));
        json.put("valid", String.valueOf(invalid.isEmpty()));
        StringJoiner why = new StringJoiner(", ", "[", "]");
        for (String w : invalid) why.add(str(w));
        json.put("invalid", why.toString());
        StringJoiner ratios = new StringJoiner(", ", "{", "}");
        for (Figure f : FIGURES) ratios.add(str(f.name) + ": " + String.format(Locale.ROOT, "%.3f", f.minRatio));
        json.put("lowest_cpu_ratio", ratios.toString());
        json.put("thread_local_draw_ns", val(tlDraw.value()));
        json.put("shared_draw_ns", val(shDraw.value()));
        json.put("shared_tight_2threads_ns_per_draw", val(shTight.value()));
        json.put("thread_local_tight_2threads_ns_per_draw", val(tlTight.value()));
        json.put("handoffs_per_draw", handoffsPerDraw == null ? "null" : String.format(Locale.ROOT, "%.6f", handoffsPerDraw));
        json.put("failed_cas_per_draw", failedPerDraw == null ? "null" : String.format(Locale.ROOT, "%.6f", failedPerDraw));
        StringJoiner list = new StringJoiner(", ", "[", "]");
        for (int w = 0; w < works.length; w++)
            list.add("{\"work_us\": " + works[w] + ", \"shared_ns\": " + val(shuf[w][0].value())
                     + ", \"thread_local_ns\": " + val(shuf[w][1].value()) + "}");
        json.put("shuffle3_with_work", list.toString());
        json.put("line_transfer_ns", val(lineTransfer));
        json.put("model_shuffle3_extra_ns", val(modelExtra));
        json.put("measured_shuffle3_extra_ns", val(measuredExtra));
        json.put("pingpong_handoff_ns", val(handoff.value()));
        StringJoiner obj = new StringJoiner(",\n", "{\n", "\n}");
        json.forEach((k, v) -> obj.add("  \"" + k + "\": " + v));
        System.out.println(obj);
        System.err.println("sink " + sink);  // keeps `sink` observable

        // Other processes (or the hypervisor, as steal) during the run, for the record; the
        // per-thread CPU/wall check above is what decides validity.
        long[] jiffies1 = cpuJiffies();
        if (jiffies0 != null && jiffies1 != null && jiffies1[1] > jiffies0[1]) {
            double own = ((com.sun.management.OperatingSystemMXBean)
                          java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
            double busy = jiffies1[0] - jiffies0[0], total = jiffies1[1] - jiffies0[1];
            double foreign = Math.max(0, busy - own / 1e7) / total;  // jiffies are 10 ms (USER_HZ 100)
            System.err.printf(Locale.ROOT, "other load during the run: %.1f%% of the CPUs%n", 100 * foreign);
        }
        if (!invalid.isEmpty()) {
            System.err.println("refusing to give defaults from this run:");
            for (String w : invalid) System.err.println("  " + w);
            System.exit(3);
        }
    }
}
