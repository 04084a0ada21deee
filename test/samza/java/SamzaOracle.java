// Runs Apache Samza's own groupers (samza-core 1.8.0 from Maven Central) on cases read from stdin,
// one JSON object per line, and prints one JSON result per line: the oracle of
// test/samza/samza-java.test.ts. Cases:
//   {"kind":"group","config":{..},"ssps":[[system,stream,partition,keyBucket],..],"previous":null|[[task,[ssp,..]],..]}
//     The SSP grouper the config names, built by its factory; with "previous", wrapped in
//     SSPGrouperProxy (HashSystemStreamPartitionMapper) with that previous task -> SSP assignment.
//   {"kind":"containers","grouper":"count"|"ids","count":n,"tasks":[..],"call":"tasks"|"ids"|"metadata",
//    "ids":null|[..],"previousTaskToProcessor":[[task,id],..],"processorLocality":[[id,host],..],"taskLocality":[[task,host],..]}
//     GroupByContainerCount(n) or GroupByContainerIds(n), called as group(tasks), group(tasks, ids)
//     or group(tasks, GrouperMetadata).
//   {"kind":"hashmap","keys":[..]}: the iteration order of a java.util.HashMap filled in that order.
// Inputs keep the order they are given in (LinkedHashSet, LinkedHashMap), so where Samza iterates
// an input collection the test controls the order.
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.samza.Partition;
import org.apache.samza.config.MapConfig;
import org.apache.samza.container.TaskName;
import org.apache.samza.container.grouper.stream.SSPGrouperProxy;
import org.apache.samza.container.grouper.stream.SystemStreamPartitionGrouper;
import org.apache.samza.container.grouper.stream.SystemStreamPartitionGrouperFactory;
import org.apache.samza.container.grouper.task.GroupByContainerCount;
import org.apache.samza.container.grouper.task.GroupByContainerIds;
import org.apache.samza.container.grouper.task.GrouperMetadataImpl;
import org.apache.samza.container.grouper.task.TaskNameGrouper;
import org.apache.samza.job.model.ContainerModel;
import org.apache.samza.job.model.TaskModel;
import org.apache.samza.runtime.LocationId;
import org.apache.samza.system.SystemStreamPartition;

public class SamzaOracle {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    JSON.getFactory().enable(JsonGenerator.Feature.ESCAPE_NON_ASCII);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, false, "UTF-8");
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isEmpty()) continue;
      JsonNode c = JSON.readTree(line);
      ObjectNode result = JSON.createObjectNode();
      try {
        switch (c.get("kind").asText()) {
          case "group": result.set("ok", group(c)); break;
          case "containers": result.set("ok", containers(c)); break;
          case "hashmap": result.set("ok", hashmap(c)); break;
          default: throw new IllegalStateException("unknown case kind " + c.get("kind"));
        }
      } catch (Exception e) {
        result.set("error", describe(e));
      }
      out.println(JSON.writeValueAsString(result));
    }
    out.flush();
  }

  private static ObjectNode describe(Throwable e) {
    ObjectNode n = JSON.createObjectNode();
    n.put("type", e.getClass().getSimpleName());
    n.put("message", e.getMessage());
    if (e.getCause() != null && e.getCause() != e) n.set("cause", describe(e.getCause()));
    return n;
  }

  private static SystemStreamPartition ssp(JsonNode a) {
    return new SystemStreamPartition(a.get(0).asText(), a.get(1).asText(), new Partition(a.get(2).asInt()), a.get(3).asInt());
  }

  private static ArrayNode sspJson(SystemStreamPartition s) {
    ArrayNode a = JSON.createArrayNode();
    a.add(s.getSystem()).add(s.getStream()).add(s.getPartition().getPartitionId()).add(s.getKeyBucket());
    return a;
  }

  private static Map<String, String> stringMap(JsonNode o) {
    Map<String, String> m = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = o.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      m.put(e.getKey(), e.getValue().asText());
    }
    return m;
  }

  private static JsonNode group(JsonNode c) throws Exception {
    MapConfig config = new MapConfig(stringMap(c.get("config")));
    String factoryName = config.get("job.systemstreampartition.grouper.factory", "org.apache.samza.container.grouper.stream.GroupByPartitionFactory");
    SystemStreamPartitionGrouperFactory factory = (SystemStreamPartitionGrouperFactory) Class.forName(factoryName).getDeclaredConstructor().newInstance();
    SystemStreamPartitionGrouper grouper = factory.getSystemStreamPartitionGrouper(config);
    Set<SystemStreamPartition> ssps = new LinkedHashSet<>();
    for (JsonNode s : c.get("ssps")) ssps.add(ssp(s));
    Map<TaskName, Set<SystemStreamPartition>> grouped;
    JsonNode previous = c.get("previous");
    if (previous == null || previous.isNull()) {
      grouped = grouper.group(ssps);
    } else {
      Map<TaskName, List<SystemStreamPartition>> prev = new LinkedHashMap<>();
      for (JsonNode entry : previous) {
        List<SystemStreamPartition> list = new ArrayList<>();
        for (JsonNode s : entry.get(1)) list.add(ssp(s));
        prev.put(new TaskName(entry.get(0).asText()), list);
      }
      grouped = new SSPGrouperProxy(config, grouper).group(ssps, new GrouperMetadataImpl(new HashMap<>(), new HashMap<>(), prev, new HashMap<>()));
    }
    // Sorted by task name, each task's SSPs in SSP order: a canonical form to compare.
    ArrayNode out = JSON.createArrayNode();
    for (Map.Entry<TaskName, Set<SystemStreamPartition>> e : new TreeMap<>(grouped).entrySet()) {
      ArrayNode list = JSON.createArrayNode();
      for (SystemStreamPartition s : new java.util.TreeSet<>(e.getValue())) list.add(sspJson(s));
      ArrayNode pair = JSON.createArrayNode();
      pair.add(e.getKey().getTaskName()).add(list);
      out.add(pair);
    }
    return out;
  }

  private static Map<String, String> pairs(JsonNode a) {
    Map<String, String> m = new LinkedHashMap<>();
    if (a != null && !a.isNull()) for (JsonNode p : a) m.put(p.get(0).asText(), p.get(1).asText());
    return m;
  }

  private static JsonNode containers(JsonNode c) {
    int count = c.get("count").asInt();
    TaskNameGrouper grouper = c.get("grouper").asText().equals("count") ? new GroupByContainerCount(count) : new GroupByContainerIds(count);
    Set<TaskModel> tasks = new LinkedHashSet<>();
    int changelog = 0;
    for (JsonNode t : c.get("tasks")) tasks.add(new TaskModel(new TaskName(t.asText()), new LinkedHashSet<>(), new Partition(changelog++)));
    Set<ContainerModel> models;
    switch (c.get("call").asText()) {
      case "tasks":
        models = grouper.group(tasks);
        break;
      case "ids": {
        JsonNode ids = c.get("ids");
        List<String> list = null;
        if (ids != null && !ids.isNull()) {
          list = new ArrayList<>();
          for (JsonNode id : ids) list.add(id.asText());
        }
        models = grouper.group(tasks, list);
        break;
      }
      case "metadata": {
        Map<String, LocationId> processorLocality = new LinkedHashMap<>();
        pairs(c.get("processorLocality")).forEach((k, v) -> processorLocality.put(k, new LocationId(v)));
        Map<TaskName, LocationId> taskLocality = new LinkedHashMap<>();
        pairs(c.get("taskLocality")).forEach((k, v) -> taskLocality.put(new TaskName(k), new LocationId(v)));
        Map<TaskName, String> previous = new LinkedHashMap<>();
        pairs(c.get("previousTaskToProcessor")).forEach((k, v) -> previous.put(new TaskName(k), v));
        models = grouper.group(tasks, new GrouperMetadataImpl(processorLocality, taskLocality, new HashMap<>(), previous));
        break;
      }
      default:
        throw new IllegalStateException("unknown call " + c.get("call"));
    }
    ArrayNode out = JSON.createArrayNode();
    Map<String, ContainerModel> byId = new TreeMap<>();
    for (ContainerModel m : models) byId.put(m.getId(), m);
    for (ContainerModel m : byId.values()) {
      ArrayNode names = JSON.createArrayNode();
      for (TaskName t : new TreeMap<>(m.getTasks()).keySet()) names.add(t.getTaskName());
      ArrayNode pair = JSON.createArrayNode();
      pair.add(m.getId()).add(names);
      out.add(pair);
    }
    return out;
  }

  private static JsonNode hashmap(JsonNode c) {
    Map<String, String> m = new HashMap<>();
    for (JsonNode k : c.get("keys")) m.put(k.asText(), "");
    ArrayNode out = JSON.createArrayNode();
    for (String k : m.keySet()) out.add(k);
    return out;
  }
}
