package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.cli.MarkdownDocs.Doc;
import io.paimongov.cli.MarkdownDocs.Table;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * docs/cli.md against the commands' own definitions, what {@code paimon-governance <cmd> --help}
 * prints: for each command, the options of its section's option table are exactly the options
 * the command declares (hidden ones aside), both ways; its synopsis names none it lacks; the exit
 * codes of its section's "code" table are exactly those of its help's "Exit codes" list, and a
 * command whose help lists exit codes has such a table. The general exit-code table is
 * {@link GovernanceCli}'s codes, the command table is the CLI's commands, every module table row
 * of {@code governance-cli} names them all, and a command line anywhere in the reference docs uses
 * only options its command has.
 */
class CliDocsTest {

    private static final Pattern OPTION = Pattern.compile("(?<![\\w-])(--?[a-zA-Z][a-zA-Z0-9-]*)");

    static Stream<String> commands() {
        return commandsOf(GovernanceCli.commandLine()).keySet().stream();
    }

    /** Every command and subcommand by its path, such as {@code bench scale}; the help command aside. */
    private static Map<String, CommandLine> commandsOf(CommandLine root) {
        Map<String, CommandLine> all = new LinkedHashMap<>();
        for (CommandLine sub : root.getSubcommands().values()) {
            if (sub.getCommandSpec().userObject() instanceof CommandLine.HelpCommand) {
                continue;
            }
            String path = sub.getCommandSpec().qualifiedName(" ").replaceFirst("^paimon-governance ", "");
            all.putIfAbsent(path, sub);
            all.putAll(commandsOf(sub));
        }
        return all;
    }

    @ParameterizedTest
    @MethodSource("commands")
    void theOptionTableListsExactlyTheCommandsOptions(String command) {
        CommandSpec spec = commandsOf(GovernanceCli.commandLine()).get(command).getCommandSpec();
        List<String> section = section(command);
        Set<String> documented = new TreeSet<>();
        for (Table table : MarkdownDocs.tables(section)) {
            if (table.header().get(0).equals("option")) {
                table.rows().forEach(row -> documented.addAll(options(row.get(0))));
            }
        }
        Set<String> declared = new TreeSet<>();
        Set<String> standard = new TreeSet<>();
        for (OptionSpec option : spec.options()) {
            (option.usageHelp() || option.versionHelp() ? standard : option.hidden() ? standard : declared)
                    .addAll(List.of(option.names()));
        }
        assertThat(documented).as("docs/cli.md's option table of '" + command + "' (against its --help)")
                .containsExactlyInAnyOrderElementsOf(declared);
        Set<String> synopsis = new TreeSet<>(options(synopsis(section)));
        synopsis.removeAll(declared);
        synopsis.removeAll(standard);
        assertThat(synopsis).as("options in the synopsis of '" + command + "' that it does not declare").isEmpty();
    }

    @ParameterizedTest
    @MethodSource("commands")
    void theExitCodeTableListsExactlyTheCodesOfTheHelp(String command) {
        CommandSpec spec = commandsOf(GovernanceCli.commandLine()).get(command).getCommandSpec();
        Set<String> declared = new TreeSet<>();
        spec.usageMessage().exitCodeList().keySet().forEach(k -> declared.add(k.strip()));
        assertThat(exitCodes(section(command))).as("docs/cli.md's exit codes of '" + command + "' (against its --help)")
                .containsExactlyInAnyOrderElementsOf(declared);
    }

    @Test
    void theGeneralExitCodesAreTheCliCodesAndItsHelpLists() throws Exception {
        Set<String> constants = new TreeSet<>();
        for (Field f : GovernanceCli.class.getFields()) {
            if (f.getName().startsWith("EXIT_") && Modifier.isStatic(f.getModifiers())) {
                constants.add(Integer.toString(f.getInt(null)));
            }
        }
        Set<String> help = new TreeSet<>();
        GovernanceCli.commandLine().getCommandSpec().usageMessage().exitCodeList().keySet().forEach(k -> help.add(k.strip()));
        assertThat(help).as("paimon-governance --help's exit codes").containsExactlyInAnyOrderElementsOf(constants);
        assertThat(exitCodes(section(cli(), "Exit codes"))).as("docs/cli.md, Exit codes").containsExactlyInAnyOrderElementsOf(constants);
    }

    @Test
    void theCommandTableAndTheModuleRowsNameEveryCommand() {
        Set<String> commands = new TreeSet<>();
        GovernanceCli.commandLine().getSubcommands().forEach((name, sub) -> {
            if (!(sub.getCommandSpec().userObject() instanceof CommandLine.HelpCommand)) {
                commands.add(name);
            }
        });
        Set<String> listed = new TreeSet<>();
        Doc cli = cli();
        // The table of commands is the one before the first section.
        List<String> preamble = cli.lines().subList(0, cli.lines().indexOf(cli.lines().stream()
                .filter(l -> l.startsWith("## ")).findFirst().orElseThrow()));
        for (Table table : MarkdownDocs.tables(preamble)) {
            if (table.header().get(0).equals("command")) {
                table.rows().forEach(row -> listed.add(row.get(0).replaceAll("^\\[`([^`]+)`\\].*", "$1")));
            }
        }
        assertThat(listed).as("docs/cli.md's table of commands").containsExactlyInAnyOrderElementsOf(commands);
        List<String> short_ = new ArrayList<>();
        for (Doc doc : MarkdownDocs.reference()) {
            for (String line : doc.lines()) {
                if (line.startsWith("| `governance-cli` |")) {
                    commands.stream().filter(c -> !line.contains("`" + c + "`")).forEach(c -> short_.add(doc.name() + ": no `" + c + "`"));
                }
            }
        }
        assertThat(short_).as("module rows of governance-cli that leave out a command").isEmpty();
    }

    /**
     * A command line written anywhere in the reference docs, {@code paimon-governance demo --budget
     * 16m}, uses options its command has (up to the end of the line, a backtick or a table cell).
     */
    @Test
    void everyCommandLineInTheDocsUsesOptionsItsCommandHas() {
        Map<String, CommandLine> commands = commandsOf(GovernanceCli.commandLine());
        Pattern invocation = Pattern.compile("paimon-governance ([a-z]+(?: [a-z]+)?)([^`|]*)");
        List<String> unknown = new ArrayList<>();
        for (Doc doc : MarkdownDocs.reference()) {
            for (int i = 0; i < doc.raw().size(); i++) {
                Matcher m = invocation.matcher(doc.raw().get(i));
                while (m.find()) {
                    String command = m.group(1);
                    String rest = m.group(2);
                    if (!commands.containsKey(command)) {
                        // "bench --quick": the second word is an option's value or nothing.
                        String first = command.split(" ")[0];
                        if (!commands.containsKey(first)) {
                            continue;
                        }
                        rest = command.substring(first.length()) + rest;
                        command = first;
                    }
                    Set<String> names = new TreeSet<>();
                    commands.get(command).getCommandSpec().options().forEach(o -> names.addAll(List.of(o.names())));
                    for (String option : options(" " + rest.split("[;#]")[0])) {
                        if (!names.contains(option) && option.startsWith("--")) {
                            unknown.add(doc.name() + ":" + (i + 1) + ": paimon-governance " + command + " " + option);
                        }
                    }
                }
            }
        }
        assertThat(unknown).as("command lines in the docs with options their command does not have").isEmpty();
    }

    private static Doc cli() {
        return MarkdownDocs.read(MarkdownDocs.ROOT.resolve("docs/cli.md"));
    }

    /** The section of a command: "## demo", or "### bench scale" for a subcommand. */
    private static List<String> section(String command) {
        return section(cli(), command);
    }

    /**
     * From the heading to the next heading of its level or above, or to the next command's heading
     * (bench's own section ends where "### bench scale" begins).
     */
    private static List<String> section(Doc doc, String heading) {
        int start = doc.heading(heading);
        assertThat(start).as("docs/cli.md has a heading '" + heading + "'").isGreaterThanOrEqualTo(0);
        int level = doc.level(start);
        Set<String> commands = new TreeSet<>(commandsOf(GovernanceCli.commandLine()).keySet());
        int end = start + 1;
        for (; end < doc.lines().size(); end++) {
            int l = doc.level(end);
            if (l > 0 && (l <= level || commands.contains(doc.headingText(end)))) {
                break;
            }
        }
        List<String> lines = new ArrayList<>();
        boolean code = false;
        for (int i = start; i < end; i++) {
            String raw = doc.raw().get(i);
            if (raw.strip().startsWith("```")) {
                code = !code;
                lines.add("");
            } else {
                // A code block's lines (the synopsis among them) are kept marked, for synopsis().
                lines.add(code ? "\u0000" + raw : raw);
            }
        }
        return lines;
    }

    /** The first code block of a section: the command's synopsis. */
    private static String synopsis(List<String> section) {
        StringBuilder text = new StringBuilder();
        boolean in = false;
        for (String line : section) {
            if (line.startsWith("\u0000")) {
                in = true;
                text.append(line.substring(1)).append('\n');
            } else if (in) {
                break;
            }
        }
        return text.toString();
    }

    private static Set<String> exitCodes(List<String> section) {
        Set<String> codes = new TreeSet<>();
        for (Table table : MarkdownDocs.tables(section)) {
            if (table.header().get(0).equals("code")) {
                table.rows().forEach(row -> codes.addAll(List.of(row.get(0).split(",\\s*"))));
            }
        }
        return codes;
    }

    private static List<String> options(String cell) {
        List<String> names = new ArrayList<>();
        Matcher m = OPTION.matcher(cell);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }
}
