package backfill.testinfra;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.ByteUnit;
import org.neo4j.server.configuration.ServerSettings;

/**
 * Runs embedded Neo4j Community for integration tests.
 *
 * <p>Usage: {@code java -Xmx1g -jar neo4j-launcher.jar <home-dir> [bolt-port [http-port]]}. Bolt
 * listens on 127.0.0.1:bolt-port (default 7687) with authentication disabled and usage reports
 * off; the database files live under home-dir. HTTP is off unless http-port is given: then the
 * embedded web server listens on 127.0.0.1:http-port and serves Neo4j Browser (the neo4j-browser
 * jar on the class path) at /browser/ and the HTTP query API at /db/. The launcher prints a line
 * "READY bolt://127.0.0.1:port" (followed by " http://127.0.0.1:http-port/browser/" when HTTP is on)
 * once the default database is available and its ports accept TCP connections, and shuts the
 * database down cleanly on SIGTERM or SIGINT.
 */
public final class Neo4jLauncher {
  private static final String HOST = "127.0.0.1";
  private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

  private Neo4jLauncher() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1 || args.length > 3) {
      System.err.println("usage: neo4j-launcher <home-dir> [bolt-port [http-port]]");
      System.exit(2);
    }
    Path home = Path.of(args[0]).toAbsolutePath();
    int port = args.length >= 2 ? Integer.parseInt(args[1]) : 7687;
    int httpPort = args.length == 3 ? Integer.parseInt(args[2]) : 0;
    Files.createDirectories(home);

    DatabaseManagementServiceBuilder builder =
        new DatabaseManagementServiceBuilder(home)
            .setConfig(BoltConnector.enabled, true)
            .setConfig(BoltConnector.listen_address, new SocketAddress(HOST, port))
            .setConfig(BoltConnector.advertised_address, new SocketAddress(HOST, port))
            .setConfig(HttpConnector.enabled, false)
            .setConfig(GraphDatabaseSettings.auth_enabled, false)
            .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(256))
            // Keep only the newest transaction log file (pruned at each checkpoint): by default
            // Neo4j keeps two days of logs, and benchmarks writing embeddings over and over filled
            // the disk (71 GB of logs in 90 minutes), which panics the database.
            .setConfig(GraphDatabaseSettings.keep_logical_logs, "false")
            // No usage reports: the machine must not contact anything outside loopback.
            .setConfig(GraphDatabaseSettings.udc_enabled, false)
            // Keep no transaction logs beyond the last checkpoint: test loads of embeddings
            // rewrite gigabytes, and the default retention would keep every byte of them.
            .setConfig(GraphDatabaseSettings.keep_logical_logs, "false")
            // Bolt waits 5 s twice on shutdown by default; tests want a quick stop.
            .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofMillis(500))
            .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofMillis(500));
    if (httpPort > 0) {
      builder
          .setConfig(HttpConnector.enabled, true)
          .setConfig(HttpConnector.listen_address, new SocketAddress(HOST, httpPort))
          .setConfig(HttpConnector.advertised_address, new SocketAddress(HOST, httpPort))
          // The Browser sends no usage data and loads nothing but its own files: its page may
          // reach only this server's HTTP and Bolt ports (the default policy lets it fetch
          // fonts, analytics and guides from the internet).
          .setConfig(ServerSettings.allow_telemetry, false)
          .setConfig(
              ServerSettings.http_static_content_security_policy,
              "default-src 'self'; script-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                  + "font-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'; "
                  + "connect-src 'self' ws://"
                  + HOST
                  + ":"
                  + port);
    }
    DatabaseManagementService dbms = builder.build();

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println("STOPPING");
                  System.out.flush();
                  dbms.shutdown();
                  stopped.countDown();
                },
                "neo4j-shutdown"));

    GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
    if (!db.isAvailable(START_TIMEOUT.toMillis())) {
      System.err.println("database did not become available within " + START_TIMEOUT);
      System.exit(1);
    }
    waitForPort("bolt", port);
    String ready = "READY bolt://" + HOST + ":" + port;
    if (httpPort > 0) {
      waitForPort("http", httpPort);
      ready += " http://" + HOST + ":" + httpPort + "/browser/";
    }
    System.out.println(ready);
    System.out.flush();
    stopped.await();
  }

  /** Polls until a TCP connection to the port succeeds or the start timeout passes. */
  private static void waitForPort(String what, int port) throws InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(HOST, port), 1000);
        return;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          System.err.println(what + " port " + port + " not reachable: " + e.getMessage());
          System.exit(1);
        }
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }
  }
}
