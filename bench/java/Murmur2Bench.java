// Kafka's own key hashing, timed for bench/hash.bench.ts: what a Java producer does per key
// (StringSerializer = String.getBytes(UTF_8), then Utils.murmur2, Utils.toPositive, % n), from
// kafka-clients' jar. Input: one dataset file per argument (see javaInput in the bench).
// Output, one line per dataset: "<name> <cold first run ms> <warm median ms> <checksum>".
// The first run is cold (interpreted, JIT-cold; Utils already loaded), the rest JIT-warm;
// the checksum folds the partitions as sum = sum * 31 + p (mod 2^32), as the bench does.
import java.io.DataInputStream;
import java.io.BufferedInputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.utils.Utils;

public final class Murmur2Bench {
  // File: int kind (0 = strings, 1 = byte keys), int count, int partitions, int runs, then
  // count keys, each an int length and that many bytes (strings: UTF-16BE units, so lone
  // surrogates survive; byte keys: the bytes).
  public static void main(String[] args) throws IOException {
    for (String file : args) {
      try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(file), 1 << 20))) {
        int kind = in.readInt(), count = in.readInt(), n = in.readInt(), runs = in.readInt();
        String[] strings = kind == 0 ? new String[count] : null;
        byte[][] bytes = kind == 1 ? new byte[count][] : null;
        for (int i = 0; i < count; i++) {
          byte[] b = new byte[in.readInt()];
          in.readFully(b);
          if (kind == 0) strings[i] = new String(b, StandardCharsets.UTF_16BE);
          else bytes[i] = b;
        }
        // Load and initialise Utils before the clock starts: the cold run measures cold code, not class loading.
        if (Utils.murmur2(new byte[] {1, 2, 3}) == 0) System.err.print("");
        int[] out = new int[count];
        double[] ms = new double[runs];
        for (int r = 0; r < runs; r++) {
          long t = System.nanoTime();
          if (kind == 0) {
            for (int i = 0; i < count; i++) out[i] = Utils.toPositive(Utils.murmur2(strings[i].getBytes(StandardCharsets.UTF_8))) % n;
          } else {
            for (int i = 0; i < count; i++) out[i] = Utils.toPositive(Utils.murmur2(bytes[i])) % n;
          }
          ms[r] = (System.nanoTime() - t) / 1e6;
        }
        int sum = 0;
        for (int p : out) sum = sum * 31 + p;
        double cold = ms[0];
        double[] warm = Arrays.copyOfRange(ms, 1, runs);
        Arrays.sort(warm);
        double median = warm.length % 2 == 1 ? warm[warm.length / 2] : (warm[warm.length / 2 - 1] + warm[warm.length / 2]) / 2;
        System.out.println(file.replaceAll(".*/", "").replace(".keys", "") + " " + cold + " " + median + " " + Integer.toUnsignedString(sum));
      }
    }
  }
}
