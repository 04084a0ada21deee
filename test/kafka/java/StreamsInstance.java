import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * One Kafka Streams 4.4 instance on the streams group protocol (group.protocol=streams, KIP-1071),
 * one JVM per instance so a test can SIGKILL it. Used by test/kafka/streams-plugin.test.ts.
 *
 *   java StreamsInstance BOOTSTRAP APP_ID NAME ZONE CLUSTER STATE_DIR
 *   java StreamsInstance --group-assignor BOOTSTRAP GROUP ASSIGNOR   (sets the group config streams.assignor.name)
 *
 * Topology: input (String keys) -> groupByKey -> count (store "counts", stateful) -> output.
 * Client tags client.tag.zone and client.tag.cluster; one stream thread. Writes JSON lines to stdout:
 * {"name","state","active":[task],"standby":[task]} whenever its tasks or state change, and
 * {"name","restored":"task","records":n} when a store finishes restoring.
 */
public final class StreamsInstance {
  private static final PrintStream OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);

  private static synchronized void emit(String line) {
    OUT.println(line);
    OUT.flush();
  }

  private static String list(List<String> xs) {
    Collections.sort(xs);
    StringBuilder sb = new StringBuilder("[");
    for (String x : xs) sb.append(sb.length() > 1 ? "," : "").append('"').append(x).append('"');
    return sb.append(']').toString();
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 4 && args[0].equals("--group-assignor")) {
      Properties a = new Properties();
      a.put("bootstrap.servers", args[1]);
      try (Admin admin = Admin.create(a)) {
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, args[2]);
        admin.incrementalAlterConfigs(Map.of(group, List.of(new AlterConfigOp(new ConfigEntry("streams.assignor.name", args[3]), AlterConfigOp.OpType.SET)))).all().get();
      }
      emit("{\"set\":\"" + args[3] + "\"}");
      return;
    }
    if (args.length != 6) throw new IllegalArgumentException("usage: StreamsInstance BOOTSTRAP APP_ID NAME ZONE CLUSTER STATE_DIR");
    String name = args[2];
    Properties p = new Properties();
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
    p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
    p.put(StreamsConfig.CLIENT_ID_CONFIG, name);
    p.put(StreamsConfig.STATE_DIR_CONFIG, args[5]);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 1);
    p.put(StreamsConfig.CLIENT_TAG_PREFIX + "zone", args[3]);
    p.put(StreamsConfig.CLIENT_TAG_PREFIX + "cluster", args[4]);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");

    StreamsBuilder b = new StreamsBuilder();
    b.stream("input", Consumed.with(Serdes.String(), Serdes.String()))
        .groupByKey()
        .count(Materialized.as("counts"))
        .toStream()
        .to("output", Produced.with(Serdes.String(), Serdes.Long()));
    KafkaStreams streams = new KafkaStreams(b.build(), p);
    Map<String, Long> restored = new ConcurrentHashMap<>();
    streams.setGlobalStateRestoreListener(new StateRestoreListener() {
      @Override public void onRestoreStart(TopicPartition tp, String store, long start, long end) {}
      @Override public void onBatchRestored(TopicPartition tp, String store, long offset, long n) {}
      @Override public void onRestoreEnd(TopicPartition tp, String store, long total) {
        emit("{\"name\":\"" + name + "\",\"restored\":\"" + tp.topic() + ":" + tp.partition() + "\",\"records\":" + total + "}");
      }
    });
    streams.start();
    String last = "";
    for (;;) {
      List<String> active = new ArrayList<>();
      List<String> standby = new ArrayList<>();
      try {
        for (ThreadMetadata t : streams.metadataForLocalThreads()) {
          for (TaskMetadata m : t.activeTasks()) active.add(m.taskId().toString());
          for (TaskMetadata m : t.standbyTasks()) standby.add(m.taskId().toString());
        }
      } catch (RuntimeException e) {
        // not running yet
      }
      String line = "{\"name\":\"" + name + "\",\"state\":\"" + streams.state() + "\",\"active\":" + list(active) + ",\"standby\":" + list(standby) + "}";
      if (!line.equals(last)) emit(line);
      last = line;
      Thread.sleep(Duration.ofMillis(250).toMillis());
    }
  }
}
