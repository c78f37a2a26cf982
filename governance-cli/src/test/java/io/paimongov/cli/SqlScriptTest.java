package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Statements split at the semicolons that end them, and only those. */
class SqlScriptTest {

    @Test
    void semicolonsInQuotesCommentsAndStatementSetsDoNotEndAStatement() {
        String script = """
                -- a comment; not a statement
                CREATE TABLE t (k INT, v STRING) WITH ('a;b' = 'it''s; fine');
                INSERT INTO t /*+ OPTIONS('x' = 'y;z') */ VALUES (1, "semi;colon"), (2, `back;tick`);
                /* a block; comment */
                EXECUTE STATEMENT SET BEGIN
                  INSERT INTO t VALUES (3, 'a');
                  INSERT INTO t VALUES (4, 'b');
                END;
                SELECT * FROM t
                """;
        List<String> statements = SqlScript.statements(script);
        assertThat(statements).hasSize(4);
        assertThat(statements.get(0)).startsWith("-- a comment; not a statement").endsWith("'it''s; fine')");
        assertThat(statements.get(1)).contains("/*+ OPTIONS('x' = 'y;z') */").endsWith("`back;tick`)");
        assertThat(statements.get(2)).startsWith("/* a block; comment */").contains("INSERT INTO t VALUES (4, 'b');").endsWith("END");
        assertThat(statements.get(3)).isEqualTo("SELECT * FROM t");
    }

    @Test
    void aBeginStatementSetIsOneStatementThatRunsAsAnExecuteStatementSet() {
        List<String> statements = SqlScript.statements("""
                BEGIN STATEMENT SET;
                  INSERT INTO a VALUES (1, 'x;y');
                  -- the second; of two
                  INSERT INTO b VALUES (2);
                END;
                SELECT 1;
                """);
        assertThat(statements).hasSize(2);
        assertThat(statements.get(1)).isEqualTo("SELECT 1");
        assertThat(SqlScript.asExecuteStatementSet(statements.get(0))).contains("""
                EXECUTE STATEMENT SET BEGIN
                INSERT INTO a VALUES (1, 'x;y');
                -- the second; of two
                  INSERT INTO b VALUES (2);
                END""");
        assertThat(SqlScript.asExecuteStatementSet("begin  statement set ; insert into a values (1); end"))
                .contains("EXECUTE STATEMENT SET BEGIN\ninsert into a values (1);\nEND");
        assertThat(SqlScript.asExecuteStatementSet("EXECUTE STATEMENT SET BEGIN INSERT INTO a VALUES (1); END")).isEmpty();
        assertThat(SqlScript.asExecuteStatementSet("INSERT INTO a VALUES (1)")).isEmpty();
    }

    @Test
    void commentsAndBlanksAloneAreNoStatement() {
        assertThat(SqlScript.statements(";;  -- nothing\n ; /* none */ ;")).isEmpty();
        assertThat(SqlScript.statements("SELECT 1;")).containsExactly("SELECT 1");
    }

    @Test
    void anUnclosedQuoteOrCommentNamesWhereItBegan() {
        assertThatThrownBy(() -> SqlScript.statements("SELECT 1;\nSELECT 'x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 2, column 8");
        assertThatThrownBy(() -> SqlScript.statements("SELECT /* x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 1, column 8");
    }

    @Test
    void theVerbIsTheFirstWordAfterComments() {
        assertThat(SqlScript.verb("-- x\n /* y */ insert into t values (1)")).isEqualTo("INSERT");
        assertThat(SqlScript.verb("(SELECT 1)")).isEqualTo("(");
        assertThat(SqlScript.verb("SET 'a' = 'b'")).isEqualTo("SET");
    }
}
