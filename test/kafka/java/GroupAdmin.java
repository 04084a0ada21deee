import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberAssignment;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * A long-lived Java Admin for test/kafka/broker-plugin.test.ts: one command per stdin line, one
 * answer per stdout line ("ok <json>" or "err <message>").
 *
 *   create TOPIC R;R;...        a topic with explicit replicas, R = broker ids joined by ','
 *   grow TOPIC TOTAL R;R;...    more partitions, replicas given for the new ones
 *   topics T,T                  {"T":{"id":"<topic id>","partitions":[{"p":0,"replicas":[1,2],"racks":["a","b"]},...]}}
 *   describe GROUP              ConsumerGroupDescribe (KIP-848): state, epochs, members with their
 *                               current and target assignments
 *   offsets GROUP T,T           committed offsets of GROUP and end offsets, as "T:p" -> offset
 */
public final class GroupAdmin {
  private static final PrintStream OUT = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);

  private static String str(String s) {
    if (s == null) return "null";
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') sb.append('\\').append(c);
      else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
      else sb.append(c);
    }
    return sb.append('"').toString();
  }

  private static List<List<Integer>> replicas(String spec) {
    List<List<Integer>> out = new ArrayList<>();
    for (String part : spec.split(";")) {
      List<Integer> ids = new ArrayList<>();
      for (String id : part.split(",")) ids.add(Integer.parseInt(id.trim()));
      out.add(ids);
    }
    return out;
  }

  private static String parts(MemberAssignment a) {
    StringBuilder sb = new StringBuilder("[");
    List<TopicPartition> tps = new ArrayList<>(a.topicPartitions());
    tps.sort((x, y) -> x.topic().equals(y.topic()) ? Integer.compare(x.partition(), y.partition()) : x.topic().compareTo(y.topic()));
    for (TopicPartition tp : tps) {
      if (sb.length() > 1) sb.append(',');
      sb.append(str(tp.topic() + ":" + tp.partition()));
    }
    return sb.append(']').toString();
  }

  private static String describe(Admin admin, String group) throws Exception {
    ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group);
    StringBuilder sb = new StringBuilder("{");
    sb.append("\"state\":").append(str(String.valueOf(d.groupState())));
    sb.append(",\"type\":").append(str(String.valueOf(d.type())));
    sb.append(",\"assignor\":").append(str(d.partitionAssignor()));
    sb.append(",\"groupEpoch\":").append(d.groupEpoch().orElse(-1));
    sb.append(",\"targetAssignmentEpoch\":").append(d.targetAssignmentEpoch().orElse(-1));
    sb.append(",\"members\":[");
    boolean first = true;
    for (MemberDescription m : d.members()) {
      if (!first) sb.append(',');
      first = false;
      sb.append("{\"memberId\":").append(str(m.consumerId()));
      sb.append(",\"clientId\":").append(str(m.clientId()));
      sb.append(",\"rack\":").append(str(m.rackId().orElse(null)));
      sb.append(",\"memberEpoch\":").append(m.memberEpoch().orElse(-1));
      sb.append(",\"assigned\":").append(parts(m.assignment()));
      sb.append(",\"target\":").append(m.targetAssignment().isPresent() ? parts(m.targetAssignment().get()) : "null");
      sb.append('}');
    }
    return sb.append("]}").toString();
  }

  private static String topics(Admin admin, String names) throws Exception {
    Map<String, TopicDescription> all = admin.describeTopics(Arrays.asList(names.split(","))).allTopicNames().get(30, TimeUnit.SECONDS);
    StringBuilder sb = new StringBuilder("{");
    boolean firstTopic = true;
    for (String name : names.split(",")) {
      if (!firstTopic) sb.append(',');
      firstTopic = false;
      sb.append(str(name)).append(":{\"id\":").append(str(all.get(name).topicId().toString())).append(",\"partitions\":[");
      boolean first = true;
      for (TopicPartitionInfo info : all.get(name).partitions()) {
        if (!first) sb.append(',');
        first = false;
        StringBuilder ids = new StringBuilder();
        StringBuilder racks = new StringBuilder();
        for (Node n : info.replicas()) {
          if (ids.length() > 0) {
            ids.append(',');
            racks.append(',');
          }
          ids.append(n.id());
          racks.append(str(n.rack()));
        }
        sb.append("{\"p\":").append(info.partition()).append(",\"replicas\":[").append(ids).append("],\"racks\":[").append(racks).append("]}");
      }
      sb.append("]}");
    }
    return sb.append('}').toString();
  }

  private static String offsets(Admin admin, String group, String names) throws Exception {
    Map<String, TopicDescription> all = admin.describeTopics(Arrays.asList(names.split(","))).allTopicNames().get(30, TimeUnit.SECONDS);
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (TopicDescription t : all.values()) for (TopicPartitionInfo info : t.partitions()) latest.put(new TopicPartition(t.name(), info.partition()), OffsetSpec.latest());
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
    Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
    StringBuilder sb = new StringBuilder("{\"end\":{");
    boolean first = true;
    for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : ends.entrySet()) {
      if (!first) sb.append(',');
      first = false;
      sb.append(str(e.getKey().topic() + ":" + e.getKey().partition())).append(':').append(e.getValue().offset());
    }
    sb.append("},\"committed\":{");
    first = true;
    for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
      if (e.getValue() == null) continue;
      if (!first) sb.append(',');
      first = false;
      sb.append(str(e.getKey().topic() + ":" + e.getKey().partition())).append(':').append(e.getValue().offset());
    }
    return sb.append("}}").toString();
  }

  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, "assignor-group-admin");
    try (Admin admin = Admin.create(p); BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      OUT.println("ok {\"ready\":true}");
      OUT.flush();
      String line;
      while ((line = in.readLine()) != null) {
        String[] a = line.trim().split(" ");
        String answer;
        try {
          switch (a[0]) {
            case "create": {
              List<List<Integer>> r = replicas(a[2]);
              Map<Integer, List<Integer>> byPartition = new HashMap<>();
              for (int i = 0; i < r.size(); i++) byPartition.put(i, r.get(i));
              admin.createTopics(List.of(new NewTopic(a[1], byPartition))).all().get(30, TimeUnit.SECONDS);
              answer = "{}";
              break;
            }
            case "grow":
              admin.createPartitions(Map.of(a[1], NewPartitions.increaseTo(Integer.parseInt(a[2]), replicas(a[3])))).all().get(30, TimeUnit.SECONDS);
              answer = "{}";
              break;
            case "topics":
              answer = topics(admin, a[1]);
              break;
            case "describe":
              answer = describe(admin, a[1]);
              break;
            case "offsets":
              answer = offsets(admin, a[1], a[2]);
              break;
            default:
              throw new IllegalArgumentException("unknown command " + a[0]);
          }
          OUT.println("ok " + answer);
        } catch (Exception e) {
          Throwable t = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
          OUT.println("err " + t.getClass().getSimpleName() + ": " + String.valueOf(t.getMessage()).replace('\n', ' '));
        }
        OUT.flush();
      }
    }
  }
}
