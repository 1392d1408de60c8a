package arno.filters;

import arno.pipeline.PipelineCasesTest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** The standard filters' case files (src/test/resources/cases), run by the pipeline's case runner. */
class FilterCasesTest {
    @TestFactory
    Stream<DynamicTest> cases() throws IOException {
        return PipelineCasesTest.cases(Path.of("src/test/resources/cases"));
    }

    @AfterAll
    static void clean() {
        PipelineCasesTest.clean();
    }
}
