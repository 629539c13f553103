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
 * Usage: java RngContention [--quick]    (a single JSON object on stdout; progress on stderr)
 */
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.*;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;

public class RngContention {
    static final Random SHARED = new Random(42);
    static volatile boolean stop;  // ends the two-thread phases
    static volatile long sink;     // every result is folded in here so the JIT cannot drop the work

    static int reps = 7;
    static double scale = 1.0;     // --quick: durations x0.2
    static final long OUTLIER_NS = 2_000;

    /** One draw of nextInt(3), as the first swap of a shuffle of 3 does. */
    static int draw(boolean tl) {
        return tl ? ThreadLocalRandom.current().nextInt(3) : SHARED.nextInt(3);
    }

    static Random rng(boolean tl) { return tl ? ThreadLocalRandom.current() : SHARED; }

    /** a, b: one thread, ns per draw over n draws. */
    static double single(boolean tl, int n) {
        int x = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) x ^= draw(tl);  // int counter: a counted loop for C2
        long t1 = System.nanoTime();
        sink += x;
        return (t1 - t0) / (double) n;
    }

    /** A thread's share of a two-thread phase: runs until `stop`, returns its figure. */
    interface Worker { double run(); }

    /** Starts two copies of w together, stops them after durMs, returns the mean of their figures. */
    static double pair(long durMs, Worker w) throws Exception {
        stop = false;
        CyclicBarrier start = new CyclicBarrier(3);
        double[] out = new double[2];
        Thread[] ts = new Thread[2];
        for (int k = 0; k < 2; k++) {
            final int id = k;
            ts[k] = new Thread(() -> {
                try { start.await(); } catch (Exception e) { throw new RuntimeException(e); }
                out[id] = w.run();
            });
            ts[k].start();
        }
        start.await();
        Thread.sleep(durMs);
        stop = true;
        for (Thread t : ts) t.join();
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
        Thread other = new Thread(() -> {
            for (long i = 1; i < handoffs; i += 2) { while (baton != i) Thread.onSpinWait(); baton = i + 1; }
        });
        other.start();
        long t0 = System.nanoTime();
        for (long i = 0; i < handoffs; i += 2) { while (baton != i) Thread.onSpinWait(); baton = i + 1; }
        other.join();
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
    static double median(String what, Measure m) throws Exception {
        double[] v = new double[reps];
        for (int i = 0; i < reps; i++) v[i] = m.run();
        Arrays.sort(v);
        double med = reps % 2 == 1 ? v[reps / 2] : (v[reps / 2 - 1] + v[reps / 2]) / 2;
        System.err.printf(Locale.ROOT, "%-32s median %8.2f  (min %.2f, max %.2f)%n", what, med, v[0], v[reps - 1]);
        return med;
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

    public static void main(String[] args) throws Exception {
        if (Arrays.asList(args).contains("--quick")) { reps = 3; scale = 0.2; }
        int draws = (int) Math.round(20_000_000 * scale);  // ~0.1 s per single-thread repetition
        long[] works = {50, 140};

        // Warm-up (~1.3 s at full scale): every kernel, both generators, so the JIT has compiled them.
        long[] jiffies0 = cpuJiffies();
        System.err.println("warm-up");
        pingPong(draws / 10);
        for (boolean tl : new boolean[] {true, false}) {
            single(tl, draws);
            pair(ms(250), tight(tl));
            pair(ms(300), shuffleWithWork(tl, works[0]));
        }

        double tlDraw = median("thread_local_draw_ns", () -> single(true, draws));
        double shDraw = median("shared_draw_ns", () -> single(false, draws));
        double shTight = median("shared_tight_2threads", () -> pair(ms(500), tight(false)));
        double tlTight = median("thread_local_tight_2threads", () -> pair(ms(500), tight(true)));
        double handoff = median("pingpong_handoff_ns", () -> pingPong(draws / 10));
        double[][] shuf = new double[works.length][2];  // [work][0 = shared, 1 = thread-local]
        for (int w = 0; w < works.length; w++)
            for (int t = 0; t < 2; t++) {
                final long work = works[w];
                final boolean tl = t == 1;
                shuf[w][t] = median("shuffle3 work=" + work + (tl ? " tlr" : " shared"),
                                    () -> pair(ms(800), shuffleWithWork(tl, work)));
            }

        // Critical-section model: in a tight loop the two threads alternate ownership of the seed's
        // line, so each thread's draw cycle is its own draw plus the other's, each paying a transfer:
        // 2 * (shared_draw_ns + line_transfer_ns) = shared_tight_2threads_ns_per_draw.
        double lineTransfer = Math.max(0, shTight / 2 - shDraw);
        // A shared shuffle of 3 after real work finds the line last held by the other core: one
        // transfer (the second draw hits the now-local line), plus 2 draws at the shared premium.
        double modelExtra = lineTransfer + 2 * (shDraw - tlDraw);
        double measuredExtra = shuf[0][0] - shuf[0][1];

        Map<String, String> json = new LinkedHashMap<>();
        json.put("cpu", str(cpuName()));
        json.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
        json.put("jdk", str(System.getProperty("java.vm.name") + " " + System.getProperty("java.version")));
        json.put("date", str(LocalDate.now(ZoneOffset.UTC).toString()));
        json.put("reps", String.valueOf(reps));
        json.put("thread_local_draw_ns", num(tlDraw));
        json.put("shared_draw_ns", num(shDraw));
        json.put("shared_tight_2threads_ns_per_draw", num(shTight));
        json.put("thread_local_tight_2threads_ns_per_draw", num(tlTight));
        StringJoiner list = new StringJoiner(", ", "[", "]");
        for (int w = 0; w < works.length; w++)
            list.add("{\"work_us\": " + works[w] + ", \"shared_ns\": " + num(shuf[w][0])
                     + ", \"thread_local_ns\": " + num(shuf[w][1]) + "}");
        json.put("shuffle3_with_work", list.toString());
        json.put("line_transfer_ns", num(lineTransfer));
        json.put("model_shuffle3_extra_ns", num(modelExtra));
        json.put("measured_shuffle3_extra_ns", num(measuredExtra));
        json.put("pingpong_handoff_ns", num(handoff));
        StringJoiner obj = new StringJoiner(",\n", "{\n", "\n}");
        json.forEach((k, v) -> obj.add("  \"" + k + "\": " + v));
        System.out.println(obj);
        System.err.println("sink " + sink);  // keeps `sink` observable

        // The figures are only meaningful on an otherwise idle machine: warn when other processes
        // (or the hypervisor, as steal) took more than 5% of the CPUs during the run.
        long[] jiffies1 = cpuJiffies();
        if (jiffies0 != null && jiffies1 != null && jiffies1[1] > jiffies0[1]) {
            double own = ((com.sun.management.OperatingSystemMXBean)
                          java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
            double busy = jiffies1[0] - jiffies0[0], total = jiffies1[1] - jiffies0[1];
            double foreign = Math.max(0, busy - own / 1e7) / total;  // jiffies are 10 ms (USER_HZ 100)
            System.err.printf(Locale.ROOT, "other load during the run: %.1f%% of the CPUs%s%n", 100 * foreign,
                              foreign > 0.05 ? "  WARNING: machine not idle, figures unreliable" : "");
        }
    }
}
