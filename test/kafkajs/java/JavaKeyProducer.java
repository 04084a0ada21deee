// Produces keys with Kafka's own Java producer and its default partitioner, so the test can read
// back where Java puts each key. Input (a file, one record per line):
//   <index> TAB s TAB <UTF-16 code units as 4-hex-digit groups>   a String key (StringSerializer)
//   <index> TAB i TAB <decimal>                                   an Integer key (IntegerSerializer)
//   <index> TAB l TAB <decimal>                                   a Long key (LongSerializer)
// The value of each record is its index. Usage: JavaKeyProducer <bootstrap> <topic> <file>
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.IntegerSerializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

public final class JavaKeyProducer {
  private static <K> KafkaProducer<K, String> producer(String bootstrap, Serializer<K> keys) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    // No partitioner.class: the producer's built-in default partitioner hashes the serialized key.
    return new KafkaProducer<>(p, keys, new StringSerializer());
  }

  private static String utf16(String hex) {
    char[] units = new char[hex.length() / 4];
    for (int i = 0; i < units.length; i++) units[i] = (char) Integer.parseInt(hex.substring(4 * i, 4 * i + 4), 16);
    return new String(units);
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    List<String> lines = Files.readAllLines(Paths.get(args[2]), StandardCharsets.US_ASCII);
    try (KafkaProducer<String, String> strings = producer(bootstrap, new StringSerializer());
         KafkaProducer<Integer, String> ints = producer(bootstrap, new IntegerSerializer());
         KafkaProducer<Long, String> longs = producer(bootstrap, new LongSerializer())) {
      for (String line : lines) {
        String[] f = line.split("\t", -1);
        switch (f[1]) {
          case "s": strings.send(new ProducerRecord<>(topic, utf16(f[2]), f[0])); break;
          case "i": ints.send(new ProducerRecord<>(topic, Integer.parseInt(f[2]), f[0])); break;
          case "l": longs.send(new ProducerRecord<>(topic, Long.parseLong(f[2]), f[0])); break;
          default: throw new IllegalArgumentException("bad line: " + line);
        }
      }
      strings.flush();
      ints.flush();
      longs.flush();
    }
    System.out.println("produced " + lines.size());
  }
}
