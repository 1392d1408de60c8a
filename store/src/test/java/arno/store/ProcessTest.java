package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import arno.xml.ErrorCode;

/**
 * Crash safety and process exclusion with a real second JVM: a child loads batches and is killed
 * with SIGKILL in the middle; the store then holds exactly the batches committed (whole), every
 * document intact, and {@code store check} passes. While the child runs, this process cannot
 * open the store and is told which process holds it.
 */
class ProcessTest {

    @TempDir
    Path dir;

    private Process start(Path store, int batches) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                CrashLoader.class.getName(), store.toString(), String.valueOf(batches));
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        return pb.start();
    }

    @Test
    void aKilledLoaderLeavesOnlyWholeCommittedBatchesAndTheLockIsReleased() throws Exception {
        Path store = dir.resolve("store");
        Process child = start(store, 1000);
        int lastSeen = -1;
        long pid = -1;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("open ")) {
                    pid = Long.parseLong(line.substring(5));
                    // the child holds the store: this process must be refused, with the holder named
                    long holder = pid;
                    assertThatThrownBy(() -> TestStores.open(store))
                            .isInstanceOf(StoreException.class)
                            .hasMessageContaining("in use by another process (pid " + holder + "), probably a running './arno serve' or a Tomcat serving Arno's WAR; stop it (or undeploy the WAR) first")
                            .satisfies(e -> assertThat(((StoreException) e).code())
                                    .isEqualTo(ErrorCode.STORE_LOCKED));
                } else if (line.startsWith("committed ")) {
                    lastSeen = Integer.parseInt(line.substring(10));
                    if (lastSeen == 3) {
                        // land inside the next batch's transaction: it takes far longer than this
                        Thread.sleep(30);
                        child.destroyForcibly(); // SIGKILL on Linux
                        break;
                    }
                }
            }
        }
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).isEqualTo(137);
        assertThat(lastSeen).isEqualTo(3);

        try (Store s = TestStores.open(store)) {
            assertThat(s.check()).isEmpty();
            try (Snapshot snap = s.read()) {
                List<String> uris = snap.uris("/crash/");
                int batches = uris.size() / CrashLoader.PER_BATCH;
                assertThat(uris).hasSize(batches * CrashLoader.PER_BATCH);
                assertThat(batches).isBetween(lastSeen + 1, lastSeen + 2);
                List<String> expected = new ArrayList<>();
                for (int b = 0; b < batches; b++) {
                    for (int i = 0; i < CrashLoader.PER_BATCH; i++) {
                        expected.add(CrashLoader.uri(b, i));
                    }
                }
                assertThat(uris).containsExactlyInAnyOrderElementsOf(expected);
                for (int b = 0; b < batches; b++) {
                    for (int i = 0; i < CrashLoader.PER_BATCH; i++) {
                        TestStores.assertSameInfoset(TestStores.export(snap, CrashLoader.uri(b, i)),
                                CrashLoader.content(b, i));
                    }
                }
                assertThat(s.version()).isEqualTo(batches);
            }
            // and the store goes on working after the crash
            TestStores.putAll(s, "/after.xml", "<after/>");
            assertThat(s.check()).isEmpty();
        }
    }
}
