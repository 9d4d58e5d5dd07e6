/* cmd_run.c: placeholder while `skip run` is being written; replaced by the real command. */
#include <stdio.h>

#include "cmd.h"

int cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "skip run: not available in this build yet\n");
	return EXIT_USAGE;
}
