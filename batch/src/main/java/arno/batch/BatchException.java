package arno.batch;

import java.util.List;

/**
 * A {@link Problem} with the place it happened: the document (system id), line
 * and column where known, and any further messages (a compiler reports many).
 * Unchecked so that it can leave SAX callbacks and lambdas; it is caught at the
 * servlet edge and in the per-input task, nowhere in between.
 */
final class BatchException extends RuntimeException {
    final Problem problem;
    final String systemId;
    final int line;
    final int column;
    final List<Detail> details;

    /** One further message, e.g. one compiler error, with its own location. */
    record Detail(String code, String message, String systemId, int line, int column, boolean warning) {}

    BatchException(Problem problem, String message) {
        this(problem, message, null, -1, -1, List.of(), null);
    }

    BatchException(Problem problem, String message, Throwable cause) {
        this(problem, message, null, -1, -1, List.of(), cause);
    }

    BatchException(Problem problem, String message, String systemId, int line, int column) {
        this(problem, message, systemId, line, column, List.of(), null);
    }

    BatchException(Problem problem, String message, String systemId, int line, int column,
                   List<Detail> details, Throwable cause) {
        super(message, cause);
        this.problem = problem;
        this.systemId = systemId;
        this.line = line;
        this.column = column;
        this.details = List.copyOf(details);
    }

    /** "message (file:/x.xml, line 3, column 7)" for logs and the command line. */
    String describe() {
        StringBuilder s = new StringBuilder(getMessage());
        if (systemId != null || line > 0) {
            s.append(" (");
            if (systemId != null) s.append(systemId);
            if (line > 0) s.append(systemId != null ? ", " : "").append("line ").append(line);
            if (column > 0) s.append(", column ").append(column);
            s.append(')');
        }
        return s.toString();
    }
}
