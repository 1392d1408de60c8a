package arno.templates;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The jar's package list (arno/packages.list, which the pipeline reads because jars cannot be
 * listed) names exactly the packages in xsl/, and each is on the class path as the build copied it.
 */
class TemplatesIndexTest {
  @Test
  void theListNamesEveryPackageAndEachIsInTheJar() throws IOException {
    List<String> listed;
    try (InputStream in = getClass().getClassLoader().getResourceAsStream("arno/packages.list")) {
      assertThat(in).as("arno/packages.list on the class path").isNotNull();
      listed = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
          .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    }
    List<String> files;
    try (Stream<Path> s = Files.list(Path.of("xsl"))) {
      files = s.map(p -> "arno/templates/" + p.getFileName()).filter(n -> n.endsWith(".xsl")).toList();
    }
    assertThat(listed).containsExactlyInAnyOrderElementsOf(files);
    for (String name : listed) {
      try (InputStream in = getClass().getClassLoader().getResourceAsStream(name)) {
        assertThat(in).as(name).isNotNull();
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).as(name).contains("<xsl:package ");
      }
    }
  }
}
