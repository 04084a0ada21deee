import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;

/**
 * A broker-side assignor for test/kafka/broker-plugin.test.ts that records what the broker hands an
 * assignor (GroupSpec and SubscribedTopicDescriber) and then answers exactly as the built-in
 * UniformAssignor. Name "assignor-spy"; one JSON line per call appended to the file named by the
 * broker property assignor.spy.log:
 *   {"subscriptionType":..,"members":[{"id","rack","topics":[topicId..],"assigned":{"topicId":[p..]}}],
 *    "topics":{"topicId":{"partitions":N,"racks":[[rack..] per partition]}}}
 */
public final class SpyAssignor implements ConsumerGroupPartitionAssignor, Configurable {
  private final UniformAssignor uniform = new UniformAssignor();
  private String log;

  @Override
  public void configure(Map<String, ?> configs) {
    Object v = configs.get("assignor.spy.log");
    log = v == null ? null : v.toString();
  }

  @Override
  public String name() {
    return "assignor-spy";
  }

  private static String str(String s) {
    return s == null ? "null" : "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  @Override
  public GroupAssignment assign(GroupSpec group, SubscribedTopicDescriber topics) throws PartitionAssignorException {
    StringBuilder sb = new StringBuilder("{\"subscriptionType\":").append(str(String.valueOf(group.subscriptionType()))).append(",\"members\":[");
    Set<Uuid> topicIds = new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()));
    boolean first = true;
    for (String id : new TreeSet<>(group.memberIds())) {
      MemberSubscription sub = group.memberSubscription(id);
      topicIds.addAll(sub.subscribedTopicIds());
      if (!first) sb.append(',');
      first = false;
      sb.append("{\"id\":").append(str(id)).append(",\"rack\":").append(str(sub.rackId().orElse(null))).append(",\"topics\":[");
      boolean f2 = true;
      for (Uuid t : sub.subscribedTopicIds()) {
        if (!f2) sb.append(',');
        f2 = false;
        sb.append(str(t.toString()));
      }
      sb.append("],\"assigned\":{");
      f2 = true;
      for (Map.Entry<Uuid, Set<Integer>> e : group.memberAssignment(id).partitions().entrySet()) {
        if (!f2) sb.append(',');
        f2 = false;
        sb.append(str(e.getKey().toString())).append(":").append(new TreeSet<>(e.getValue()).toString().replace(" ", ""));
      }
      sb.append("}}");
    }
    sb.append("],\"topics\":{");
    first = true;
    for (Uuid t : topicIds) {
      int n = topics.numPartitions(t);
      if (!first) sb.append(',');
      first = false;
      sb.append(str(t.toString())).append(":{\"partitions\":").append(n).append(",\"racks\":[");
      for (int p = 0; p < n; p++) {
        if (p > 0) sb.append(',');
        sb.append('[');
        boolean f2 = true;
        for (String r : new TreeSet<>(topics.racksForPartition(t, p))) {
          if (!f2) sb.append(',');
          f2 = false;
          sb.append(str(r));
        }
        sb.append(']');
      }
      sb.append("]}");
    }
    sb.append("}}\n");
    if (log != null) {
      synchronized (SpyAssignor.class) {
        try (FileOutputStream out = new FileOutputStream(log, true)) {
          out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
          throw new PartitionAssignorException("assignor-spy could not write " + log, e);
        }
      }
    }
    return uniform.assign(group, topics);
  }
}
