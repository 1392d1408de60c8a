/**
 * What the modules' tests share, one of each: {@link arno.testkit.EmbeddedTomcat} (a real Tomcat
 * on 127.0.0.1 with the servlets and filters a test mounts), {@link arno.testkit.Http} (sending
 * requests, Basic credentials, raw answers), {@link arno.testkit.Html} (pages as DOM),
 * {@link arno.testkit.Wait} (waiting for another thread, through Awaitility), and the generated
 * documents: {@link arno.testkit.Corpus} and {@link arno.testkit.XMark}.
 *
 * <p>Threads: the generators and helpers keep no state and may be called from any thread; an
 * {@code EmbeddedTomcat} serves on Tomcat's threads and is closed by the test that started it.
 */
package arno.testkit;
