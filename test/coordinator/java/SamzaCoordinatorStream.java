// Samza's own coordinator-stream code (samza-core 1.8.0) over a real Kafka topic, as an oracle:
// CoordinatorStreamStore (its key serde, replay, tombstones), NamespaceAwareCoordinatorStreamStore,
// CoordinatorStreamValueSerde and the managers that write and read assignments. Only the Samza
// "system" under the store is ours: a SystemProducer/SystemConsumer/SystemAdmin over kafka-clients
// (samza-kafka would bring a second Kafka client and Scala build onto the classpath).
//
//   java SamzaCoordinatorStream write BROKERS JOBNAME < state.json   Samza writes the state
//   java SamzaCoordinatorStream read BROKERS JOBNAME > state.json    Samza reads the topic back
//
// state.json: {"config": {k: v}, "assignments": [{"system","stream","partition","keyBucket","tasks": [..]}],
//              "changelog": {task: n}, "containers": {containerId: {task: "Active"|"Standby"}},
//              "deleteAssignments": [{"system","stream","partition","keyBucket"}]}
// The topic is Samza's coordinator stream for the job: __samza_coordinator_<JOBNAME>_1.
import java.time.Duration;
import java.util.*;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.samza.Partition;
import org.apache.samza.config.Config;
import org.apache.samza.config.MapConfig;
import org.apache.samza.container.TaskName;
import org.apache.samza.container.grouper.task.TaskAssignmentManager;
import org.apache.samza.container.grouper.task.TaskPartitionAssignmentManager;
import org.apache.samza.coordinator.metadatastore.CoordinatorStreamStore;
import org.apache.samza.coordinator.metadatastore.NamespaceAwareCoordinatorStreamStore;
import org.apache.samza.coordinator.stream.messages.SetChangelogMapping;
import org.apache.samza.coordinator.stream.messages.SetTaskContainerMapping;
import org.apache.samza.coordinator.stream.messages.SetTaskModeMapping;
import org.apache.samza.coordinator.stream.messages.SetTaskPartitionMapping;
import org.apache.samza.job.model.TaskMode;
import org.apache.samza.metadatastore.MetadataStore;
import org.apache.samza.storage.ChangelogStreamManager;
import org.apache.samza.system.*;
import org.apache.samza.util.CoordinatorStreamUtil;

public class SamzaCoordinatorStream {
  static final ObjectMapper JSON = new ObjectMapper();

  /** CoordinatorStreamStore through its (protected) constructor that takes the system's parts. */
  static class Store extends CoordinatorStreamStore {
    Store(Config config, SystemProducer p, SystemConsumer c, SystemAdmin a) {
      super(config, p, c, a);
    }
  }

  static Properties common(String brokers) {
    Properties p = new Properties();
    p.put("bootstrap.servers", brokers);
    return p;
  }

  /** Samza's KafkaSystemProducer, reduced: bytes in, bytes out, partition 0, acks=all, flush waits. */
  static class Producer implements SystemProducer {
    final KafkaProducer<byte[], byte[]> kafka;
    Producer(String brokers) {
      Properties p = common(brokers);
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      kafka = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }
    public void start() {}
    public void stop() { kafka.close(); }
    public void register(String source) {}
    public void send(String source, OutgoingMessageEnvelope e) {
      kafka.send(new ProducerRecord<>(e.getSystemStream().getStream(), 0, (byte[]) e.getKey(), (byte[]) e.getMessage()));
    }
    public void flush(String source) { kafka.flush(); }
  }

  /** Returns everything from the registered offset to the end (read_committed), then nothing. */
  static class Consumer implements SystemConsumer {
    final KafkaConsumer<byte[], byte[]> kafka;
    SystemStreamPartition ssp;
    long next;
    Consumer(String brokers) {
      Properties p = common(brokers);
      p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      kafka = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
    public void start() {}
    public void stop() { kafka.close(); }
    public void register(SystemStreamPartition s, String offset) { ssp = s; next = Long.parseLong(offset); }
    public Map<SystemStreamPartition, List<IncomingMessageEnvelope>> poll(Set<SystemStreamPartition> set, long timeout) {
      TopicPartition tp = new TopicPartition(ssp.getStream(), 0);
      kafka.assign(List.of(tp));
      long end = kafka.endOffsets(List.of(tp)).get(tp);
      List<IncomingMessageEnvelope> out = new ArrayList<>();
      if (next < end) {
        kafka.seek(tp, next);
        while (kafka.position(tp) < end) {
          for (ConsumerRecord<byte[], byte[]> r : kafka.poll(Duration.ofMillis(500))) {
            if (r.offset() >= end) break;
            out.add(new IncomingMessageEnvelope(ssp, String.valueOf(r.offset()), r.key(), r.value()));
          }
        }
        next = end;
      }
      return out.isEmpty() ? Map.of() : Map.of(ssp, out);
    }
  }

  static class Admin implements SystemAdmin {
    final KafkaConsumer<byte[], byte[]> kafka;
    Admin(String brokers) {
      kafka = new KafkaConsumer<>(common(brokers), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
    public void stop() { kafka.close(); }
    public Map<SystemStreamPartition, String> getOffsetsAfter(Map<SystemStreamPartition, String> offsets) {
      Map<SystemStreamPartition, String> out = new HashMap<>();
      offsets.forEach((k, v) -> out.put(k, String.valueOf(Long.parseLong(v) + 1)));
      return out;
    }
    public Map<String, SystemStreamMetadata> getSystemStreamMetadata(Set<String> streams) {
      Map<String, SystemStreamMetadata> out = new HashMap<>();
      for (String s : streams) {
        TopicPartition tp = new TopicPartition(s, 0);
        long begin = kafka.beginningOffsets(List.of(tp)).get(tp);
        long end = kafka.endOffsets(List.of(tp)).get(tp);
        out.put(s, new SystemStreamMetadata(s, Map.of(new Partition(0),
            new SystemStreamMetadata.SystemStreamPartitionMetadata(String.valueOf(begin), String.valueOf(end - 1), String.valueOf(end)))));
      }
      return out;
    }
    public Integer offsetComparator(String a, String b) { return Long.compare(Long.parseLong(a), Long.parseLong(b)); }
  }

  static SystemStreamPartition ssp(JsonNode n) {
    SystemStreamPartition s = new SystemStreamPartition(n.get("system").asText(), n.get("stream").asText(), new Partition(n.get("partition").asInt()));
    return n.has("keyBucket") ? new SystemStreamPartition(s, n.get("keyBucket").asInt()) : s;
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0], brokers = args[1], job = args[2];
    Config config = new MapConfig(Map.of("job.name", job, "job.coordinator.system", "kafka"));
    CoordinatorStreamStore store = new Store(config, new Producer(brokers), new Consumer(brokers), new Admin(brokers));
    store.init();
    MetadataStore partitions = new NamespaceAwareCoordinatorStreamStore(store, SetTaskPartitionMapping.TYPE);
    MetadataStore changelog = new NamespaceAwareCoordinatorStreamStore(store, SetChangelogMapping.TYPE);
    MetadataStore containers = new NamespaceAwareCoordinatorStreamStore(store, SetTaskContainerMapping.TYPE);
    MetadataStore modes = new NamespaceAwareCoordinatorStreamStore(store, SetTaskModeMapping.TYPE);
    if (mode.equals("write")) {
      JsonNode in = JSON.readTree(System.in);
      Map<String, String> cfg = new HashMap<>();
      in.path("config").fields().forEachRemaining(e -> cfg.put(e.getKey(), e.getValue().asText()));
      CoordinatorStreamUtil.writeConfigToCoordinatorStream(store, new MapConfig(cfg));
      Map<SystemStreamPartition, List<String>> assignments = new HashMap<>();
      for (JsonNode a : in.path("assignments")) {
        List<String> tasks = new ArrayList<>();
        a.get("tasks").forEach(t -> tasks.add(t.asText()));
        assignments.put(ssp(a), tasks);
      }
      new TaskPartitionAssignmentManager(partitions).writeTaskPartitionAssignments(assignments);
      List<SystemStreamPartition> gone = new ArrayList<>();
      in.path("deleteAssignments").forEach(a -> gone.add(ssp(a)));
      if (!gone.isEmpty()) new TaskPartitionAssignmentManager(partitions).delete(gone);
      Map<TaskName, Integer> cl = new HashMap<>();
      in.path("changelog").fields().forEachRemaining(e -> cl.put(new TaskName(e.getKey()), e.getValue().asInt()));
      new ChangelogStreamManager(changelog).writePartitionMapping(cl);
      Map<String, Map<String, TaskMode>> byContainer = new HashMap<>();
      in.path("containers").fields().forEachRemaining(c -> {
        Map<String, TaskMode> tasks = new HashMap<>();
        c.getValue().fields().forEachRemaining(t -> tasks.put(t.getKey(), TaskMode.valueOf(t.getValue().asText())));
        byContainer.put(c.getKey(), tasks);
      });
      new TaskAssignmentManager(containers, modes).writeTaskContainerMappings(byContainer);
      store.flush();
    } else {
      ObjectNode out = JSON.createObjectNode();
      ObjectNode cfg = out.putObject("config");
      new TreeMap<>(CoordinatorStreamUtil.readConfigFromCoordinatorStream(store)).forEach(cfg::put);
      ArrayNode as = out.putArray("assignments");
      Map<SystemStreamPartition, List<String>> read = new TaskPartitionAssignmentManager(partitions).readTaskPartitionAssignments();
      List<SystemStreamPartition> keys = new ArrayList<>(read.keySet());
      Collections.sort(keys);
      for (SystemStreamPartition s : keys) {
        ObjectNode a = as.addObject();
        a.put("system", s.getSystem()).put("stream", s.getStream()).put("partition", s.getPartition().getPartitionId()).put("keyBucket", s.getKeyBucket());
        ArrayNode t = a.putArray("tasks");
        read.get(s).forEach(t::add);
      }
      ObjectNode cl = out.putObject("changelog");
      new TreeMap<>(new ChangelogStreamManager(changelog).readPartitionMapping()).forEach((k, v) -> cl.put(k.getTaskName(), v));
      TaskAssignmentManager tam = new TaskAssignmentManager(containers, modes);
      ObjectNode tc = out.putObject("taskContainer");
      new TreeMap<>(tam.readTaskAssignment()).forEach(tc::put);
      ObjectNode tm = out.putObject("taskModes");
      new TreeMap<>(tam.readTaskModes()).forEach((k, v) -> tm.put(k.getTaskName(), v.toString()));
      System.out.println(JSON.writeValueAsString(out));
    }
    store.close();
  }
}
