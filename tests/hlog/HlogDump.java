// Reads an HdrHistogram interval log with the reference Java implementation (Debian's
// libhdrhistogram-java) and prints, per interval: start, length, total count, the decoded
// histogram's max, and its 50th/99th/99.9th percentiles (ns). Used by tests/hlog_test.cpp.
import java.io.File;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

public class HlogDump {
  public static void main(String[] args) throws Exception {
    HistogramLogReader reader = new HistogramLogReader(new File(args[0]));
    EncodableHistogram e;
    while ((e = reader.nextIntervalHistogram()) != null) {
      Histogram h = (Histogram) e;
      System.out.printf(java.util.Locale.ROOT, "%.3f %.3f %d %d %d %d %d %d%n", h.getStartTimeStamp() / 1000.0,
          (h.getEndTimeStamp() - h.getStartTimeStamp()) / 1000.0, h.getTotalCount(), h.getMaxValue(),
          h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.getValueAtPercentile(99.9),
          h.getNumberOfSignificantValueDigits());
    }
  }
}
