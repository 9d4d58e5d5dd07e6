// child_proc: a parent that launches P kernels, then starts itself again as a child
// (fork + exec) that launches C kernels, waits for it, and launches P more.
//   child_proc [--parent-kernels P] [--child-kernels C] [--child] [--no-exec] [--reset]
//              [--exit N]
// --no-exec: the child is a fork without exec that uses no CUDA and leaves through exit()
// (its atexit handlers run, as in a Python multiprocessing fork). --reset: no child; the
// parent calls cudaDeviceReset() between its two batches and starts CUDA again. --exit N:
// the parent's exit status (default 0). Everything printed is deterministic, so a recorded
// run's output can be compared byte for byte with a bare one.
#include "common.h"
#include <sys/wait.h>
#include <unistd.h>

static void launch(long n)
{
	float *x;

	CHECK(cudaMalloc(&x, 1024 * sizeof(float)));
	for (long i = 0; i < n; i++)
		add_one<<<4, 256>>>(x, 1024);
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(x));
}

int main(int argc, char **argv)
{
	long p = arg_long(argc, argv, "--parent-kernels", 50);
	long c = arg_long(argc, argv, "--child-kernels", 30);
	int code = (int)arg_long(argc, argv, "--exit", 0);
	char cbuf[32];
	pid_t pid;
	int status = 0;

	if (arg_flag(argc, argv, "--child")) {
		launch(c);
		return 0;
	}
	launch(p);
	if (arg_flag(argc, argv, "--reset")) {
		CHECK(cudaDeviceReset());
		launch(p);
		printf("APP child_proc parent_kernels=%ld reset=1\n", 2 * p);
		return code;
	}
	snprintf(cbuf, sizeof(cbuf), "%ld", c);
	fflush(stdout);
	pid = fork();
	if (pid == 0 && arg_flag(argc, argv, "--no-exec")) {
		printf("CHILD no-exec\n");
		exit(0);
	}
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], "--child", "--child-kernels", cbuf, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	launch(p);
	printf("APP child_proc parent_kernels=%ld child_kernels=%ld child_status=%d\n", 2 * p,
	       arg_flag(argc, argv, "--no-exec") ? 0 : c,
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		return 1;
	return code;
}
