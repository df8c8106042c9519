/* kagari version: the version and what this binary was built with. */
#include <stdio.h>
#include <jansson.h>
#include <yaml.h>

#include "cmd/cmd.h"
#include "cmd/exit.h"

static int version_exec(struct cli *cli, struct cmd_env *env)
{
	printf("kagari %s (libyaml %s, jansson %s)\n", KAGARI_VERSION,
	       yaml_get_version_string(), JANSSON_VERSION);
	return EXIT_PASS;
}

const struct cmd_entry cmd_version = {
	.name = "version",
	.args = "",
	.summary = "print kagari's version",
	.exec = version_exec,
};
