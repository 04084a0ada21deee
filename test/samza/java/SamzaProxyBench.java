// Times Apache Samza's own grouping step (samza-core 1.8.0): SSPGrouperProxy over GroupByPartition,
// with the HashSystemStreamPartitionMapper, for a stateful job whose STREAMS input streams grew from
// BASE to 2 x BASE partitions. Run by bench/samza.bench.ts beside assignor's plan of the same job.
// Args: streams base warmups rounds. Prints one JSON line: the cold first call (fresh JVM), each
// JIT-warm call, and a digest of the grouping (SHA-256 of "task\tsystem.stream#partition/bucket\n"
// lines, tasks and SSPs sorted) so the benchmark can check that both sides computed the same thing.
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.samza.Partition;
import org.apache.samza.config.MapConfig;
import org.apache.samza.container.TaskName;
import org.apache.samza.container.grouper.stream.GroupByPartition;
import org.apache.samza.container.grouper.stream.SSPGrouperProxy;
import org.apache.samza.container.grouper.task.GrouperMetadataImpl;
import org.apache.samza.system.SystemStreamPartition;

public class SamzaProxyBench {
  public static void main(String[] args) throws Exception {
    int streams = Integer.parseInt(args[0]);
    int base = Integer.parseInt(args[1]);
    int warmups = Integer.parseInt(args[2]);
    int rounds = Integer.parseInt(args[3]);

    List<String> names = new ArrayList<>();
    for (int i = 0; i < streams; i++) names.add(String.format("events-%04d", i));
    Map<String, String> cfg = new HashMap<>();
    cfg.put("task.inputs", String.join(",", names.stream().map(n -> "kafka." + n).toArray(String[]::new)));
    cfg.put("stores.state.factory", "org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory");
    MapConfig config = new MapConfig(cfg);

    // What JobModelCalculator hands the proxy: the input SSPs, and the previous task -> SSPs
    // assignment (as JobModelHelper reads it from the coordinator stream: Partition p -> partition p of every stream).
    Set<SystemStreamPartition> ssps = new HashSet<>();
    for (String n : names) for (int p = 0; p < 2 * base; p++) ssps.add(new SystemStreamPartition("kafka", n, new Partition(p)));
    Map<TaskName, List<SystemStreamPartition>> previous = new HashMap<>();
    for (int p = 0; p < base; p++) {
      List<SystemStreamPartition> list = new ArrayList<>();
      for (String n : names) list.add(new SystemStreamPartition("kafka", n, new Partition(p)));
      previous.put(new TaskName("Partition " + p), list);
    }
    GrouperMetadataImpl metadata = new GrouperMetadataImpl(new HashMap<>(), new HashMap<>(), previous, new HashMap<>());

    long t0 = System.nanoTime();
    Map<TaskName, Set<SystemStreamPartition>> first = group(config, ssps, metadata);
    double coldMs = (System.nanoTime() - t0) / 1e6;
    for (int i = 0; i < warmups; i++) group(config, ssps, metadata);
    StringBuilder warm = new StringBuilder();
    for (int i = 0; i < rounds; i++) {
      long t = System.nanoTime();
      group(config, ssps, metadata);
      if (i > 0) warm.append(',');
      warm.append((System.nanoTime() - t) / 1e6);
    }
    System.out.println("{\"coldMs\":" + coldMs + ",\"warmMs\":[" + warm + "],\"tasks\":" + first.size() + ",\"digest\":\"" + digest(first) + "\"}");
  }

  private static Map<TaskName, Set<SystemStreamPartition>> group(MapConfig config, Set<SystemStreamPartition> ssps, GrouperMetadataImpl metadata) {
    return new SSPGrouperProxy(config, new GroupByPartition(config)).group(ssps, metadata);
  }

  private static String digest(Map<TaskName, Set<SystemStreamPartition>> grouping) throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    for (Map.Entry<TaskName, Set<SystemStreamPartition>> e : new TreeMap<>(grouping).entrySet()) {
      for (SystemStreamPartition s : new TreeSet<>(e.getValue())) {
        String line = e.getKey().getTaskName() + "\t" + s.getSystem() + "." + s.getStream() + "#" + s.getPartition().getPartitionId() + "/" + s.getKeyBucket() + "\n";
        sha.update(line.getBytes(StandardCharsets.UTF_8));
      }
    }
    StringBuilder hex = new StringBuilder();
    for (byte b : sha.digest()) hex.append(String.format("%02x", b & 0xff));
    return hex.toString();
  }
}
