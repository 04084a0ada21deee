import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One member of a KIP-848 consumer group (group.protocol=consumer), one JVM per member so a test
 * can SIGKILL it. Used by test/kafka/broker-plugin.test.ts.
 *
 *   java GroupMember BOOTSTRAP GROUP TOPIC[,TOPIC...] ASSIGNOR RACK CLIENT_ID
 *
 * Writes one line per event to stdout: "ready", "assigned <topic:p,...>", "revoked <topic:p,...>",
 * "lost <topic:p,...>", "rec <topic> <partition> <offset> <key> <value>" for every record polled
 * (then commitSync), "closed". A line "close" on stdin (or stdin's end) leaves the group
 * gracefully (consumer.close()).
 */
public final class GroupMember {
  private static final PrintStream OUT = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);

  private static synchronized void emit(String line) {
    OUT.println(line);
    OUT.flush();
  }

  private static String list(Collection<TopicPartition> parts) {
    StringBuilder sb = new StringBuilder();
    for (TopicPartition tp : parts) {
      if (sb.length() > 0) sb.append(',');
      sb.append(tp.topic()).append(':').append(tp.partition());
    }
    return sb.length() == 0 ? "-" : sb.toString();
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 6) throw new IllegalArgumentException("usage: GroupMember BOOTSTRAP GROUP TOPICS ASSIGNOR RACK CLIENT_ID");
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
    p.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, args[3]);
    p.put(ConsumerConfig.CLIENT_RACK_CONFIG, args[4]);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, args[5]);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "2000");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p);
    AtomicBoolean closing = new AtomicBoolean(false);
    Thread stdin = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) if (line.trim().equals("close")) break;
      } catch (Exception e) {
        // stdin gone: close as well
      }
      closing.set(true);
      consumer.wakeup();
    });
    stdin.setDaemon(true);
    stdin.start();
    consumer.subscribe(Arrays.asList(args[2].split(",")), new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> parts) {
        emit("revoked " + list(parts));
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> parts) {
        emit("assigned " + list(parts));
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> parts) {
        emit("lost " + list(parts));
      }
    });
    emit("ready");
    try {
      while (!closing.get()) {
        ConsumerRecords<String, String> records;
        try {
          records = consumer.poll(Duration.ofMillis(200));
        } catch (WakeupException e) {
          break;
        }
        if (records.isEmpty()) continue;
        StringBuilder sb = new StringBuilder();
        for (ConsumerRecord<String, String> r : records) {
          sb.append("rec ").append(r.topic()).append(' ').append(r.partition()).append(' ').append(r.offset()).append(' ').append(r.key()).append(' ').append(r.value()).append('\n');
        }
        synchronized (GroupMember.class) {
          OUT.print(sb);
          OUT.flush();
        }
        try {
          consumer.commitSync();
        } catch (WakeupException e) {
          break;
        } catch (Exception e) {
          // A commit can fail while partitions move; the next owner reads them again from the last commit.
          emit("commit-failed " + e.getClass().getSimpleName());
        }
      }
    } finally {
      consumer.close();
      emit("closed");
    }
  }
}
