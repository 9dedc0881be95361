/* A bad source, no SIGSEGV handler of the program: the copy's
 * re-execution in csync faults as memcpy would, and the default action
 * kills the process (exit status 139 in the shell). */
#include <copier.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(void)
{
	size_t n = 1u << 20;
	void *bad = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *dst = malloc(n);

	amemcpy(dst, bad, n);
	csync(dst, n);
	return 0;
}
