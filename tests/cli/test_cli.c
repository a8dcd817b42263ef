/* The option parser of cli/: every flag of every command (cli/commands.def
 * and cli/flags.def) lands in its destination with its given bit, and in
 * no other; values of the wrong shape are usage errors. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

TestSuite(cli_cli);

/* The bytes of `a` outside [at, at + len) are all zero. */
static int zero_elsewhere(const struct cli_args *a, size_t at, size_t len)
{
	const unsigned char *p = (const unsigned char *)a;

	/* the positional arguments follow the destinations */
	for (size_t i = 0; i < offsetof(struct cli_args, pos); i++)
		if ((i < at || i >= at + len) && p[i] != 0)
			return 0;
	return 1;
}

Test(cli_cli, every_flag_writes_its_destination_and_nothing_else)
{
	size_t checked = 0;

	for (int c = CLI_CMD_NONE + 1; c < CLI_CMD__COUNT; c++)
		for (const enum cli_flag *f = cli_commands[c].flags; *f != CLI_FLAG_NONE; f++) {
			const struct cli_flag_row *o = &cli_flags[*f];
			char flag[64], *argv[] = { (char *)"x", flag, (char *)"RUN", NULL };
			int argc = cli_commands[c].args == CLI_ARGS_NONE ? 2 : 3;
			struct cli_args a;
			const char *dest = (const char *)&a + o->dest;

			memset(&a, 0, sizeof(a));	/* padding too: zero_elsewhere reads it */
			snprintf(flag, sizeof(flag), "--%s=%s", o->name,
				 o->type == CLI_FLAG_BOOL ? "true" : "v");
			cr_assert_eq(cli_parse_command(c, argc, argv, &a, NULL), -1, "%s %s",
				     cli_commands[c].name, flag);
			switch (o->type) {
			case CLI_FLAG_BOOL:
				cr_expect_eq(*(const int *)dest, 1, "%s", flag);
				cr_expect(zero_elsewhere(&a, o->dest, sizeof(int)), "%s", flag);
				break;
			case CLI_FLAG_STRING:
				cr_expect_str_eq(((const struct cli_str *)dest)->v, "v", "%s", flag);
				cr_expect(((const struct cli_str *)dest)->given, "%s", flag);
				cr_expect(zero_elsewhere(&a, o->dest, sizeof(struct cli_str)), "%s", flag);
				break;
			case CLI_FLAG_STRINGS:
				cr_expect_eq(((const struct cli_strings *)dest)->n, 1, "%s", flag);
				cr_expect(((const struct cli_strings *)dest)->given, "%s", flag);
				cr_expect(zero_elsewhere(&a, o->dest, sizeof(struct cli_strings)), "%s", flag);
				break;
			}
			cli_args_release(&a);
			checked++;
		}
	cr_assert_gt(checked, 40);
}

Test(cli_cli, an_empty_value_is_given_but_empty)
{
	char *argv[] = { (char *)"submit", (char *)"--outcome-file=", NULL };
	struct cli_args a = { 0 };

	cr_assert_eq(cli_parse_command(CLI_CMD_SUBMIT, 2, argv, &a, NULL), -1);
	cr_assert(a.outcome_file.given);
	cr_assert_str_eq(a.outcome_file.v, "");
	cr_assert_not(a.action.given);
	cli_args_release(&a);
}

Test(cli_cli, a_flag_of_another_command_is_a_usage_error, .init = cr_redirect_stderr)
{
	char *argv[] = { (char *)"skip", (char *)"--outcome-stdin", NULL };
	struct cli_args a = { 0 };

	cr_assert_eq(cli_parse_command(CLI_CMD_SKIP, 2, argv, &a, NULL), CLI_EXIT_USAGE);
	cli_args_release(&a);
}

Test(cli_cli, a_bool_takes_only_true_or_false, .init = cr_redirect_stderr)
{
	char *argv[] = { (char *)"status", (char *)"--json=yes", NULL };
	struct cli_args a = { 0 };

	cr_assert_eq(cli_parse_command(CLI_CMD_STATUS, 2, argv, &a, NULL), CLI_EXIT_USAGE);
	cli_args_release(&a);
}
