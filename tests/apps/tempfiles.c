/* tempfiles: temporary files, which libc opens itself. In the current
 * directory: mkstemp (100 bytes written, closed, unlinked), mkostemp with
 * O_APPEND (10 bytes), mkstemps with a ".txt" suffix, mkdtemp (removed);
 * then tmpfile (fputs of 5 bytes, fclose). Prints what it made, names
 * masked: "mkstemp t.XXXXXX 100", ... */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void show(const char *how, const char *name, long n)
{
	printf("%s %.*sXXXXXX%s %ld\n", how, (int)(strchr(name, '.') - name + 1), name,
	       strstr(name, ".txt") ? ".txt" : "", n);
}

int main(void)
{
	char a[] = "t.XXXXXX", b[] = "t.XXXXXX", c[] = "t.XXXXXX.txt", d[] = "d.XXXXXX";
	static const char buf[100];
	int fd;
	FILE *f;

	if ((fd = mkstemp(a)) < 0 || write(fd, buf, 100) != 100 || close(fd) || unlink(a))
		return 1;
	show("mkstemp", a, 100);
	if ((fd = mkostemp(b, O_APPEND)) < 0 || write(fd, buf, 10) != 10 || close(fd) || unlink(b))
		return 1;
	show("mkostemp", b, 10);
	if ((fd = mkstemps(c, 4)) < 0 || close(fd) || unlink(c))
		return 1;
	show("mkstemps", c, 0);
	if (!mkdtemp(d) || rmdir(d))
		return 1;
	show("mkdtemp", d, 0);
	if (!(f = tmpfile()) || fputs("hello", f) == EOF || fclose(f))
		return 1;
	printf("tmpfile 5\n");
	return 0;
}
