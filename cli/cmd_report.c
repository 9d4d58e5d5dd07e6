/* cmd_report.c: placeholder while `skip report` is being written; replaced by the real command. */
#include <stdio.h>

#include "cmd.h"

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "skip report: not available in this build yet\n");
	return EXIT_USAGE;
}
