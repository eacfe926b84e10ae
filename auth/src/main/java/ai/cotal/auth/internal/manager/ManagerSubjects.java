package ai.cotal.auth.internal.manager;

import java.util.ArrayList;
import java.util.List;

/**
 * The subjects of a manager's commands (SPEC §14.4, §14.6, §14.8), one grammar for both sides: a
 * {@code manager-caller} publishes them for its bearer's scopes, a standing service credential
 * subscribes them for its instance's registered commands. Stateless.
 */
public final class ManagerSubjects {
    /** The commands that name a run op (SPEC §14.7): {@code run-start}, {@code run-resume}, {@code run-answer}. */
    public static final List<String> RUN_COMMANDS = List.of("run-start", "run-resume", "run-answer");

    private ManagerSubjects() {
    }

    /**
     * {@code <prefix>.svc.manager.<owner>.<command>} per command and, for a command
     * {@code run-<op>}, also that op's served run-request subjects
     * {@code <prefix>.svc.manager.<owner>.run.<op>.*.*} ({@code prefix} the space's subject prefix).
     */
    public static List<String> of(String prefix, String owner, List<String> commands) {
        List<String> subjects = new ArrayList<>();
        for (String command : commands) {
            subjects.add(prefix + ".svc.manager." + owner + "." + command);
            if (RUN_COMMANDS.contains(command)) {
                subjects.add(prefix + ".svc.manager." + owner + ".run." + command.substring("run-".length()) + ".*.*");
            }
        }
        return subjects;
    }
}
