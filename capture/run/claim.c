/*
 * The trace's name claimed for as long as the capture runs: two captures
 * running at once never write one file (the ranks of an mpirun given one
 * -o, two shells given one name). The claim is DIR/.NAME.lock, held with
 * flock(): a capture that died left a file no one holds, which the next
 * one takes over. One capture after another still replaces the trace, as
 * it always did.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "claim.h"
#include "util.h"

static char *claim_path;
static int claim_fd = -1;
static pid_t claim_owner;

static char *lock_name(const char *out)
{
	const char *slash = strrchr(out, '/');

	if (!slash)
		return xasprintf(".%s.lock", out);
	return xasprintf("%.*s/.%s.lock", (int)(slash - out), out, slash + 1);
}

/* the file at PATH is the one FD has open */
static int same_file(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && lstat(path, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static void claim_drop(void)
{
	if (claim_fd < 0 || getpid() != claim_owner)
		return;
	if (same_file(claim_fd, claim_path))
		unlink(claim_path);
	close(claim_fd);
	claim_fd = -1;
}

/* Ours made under a name of its own and locked before it is linked to
 * the claim's: no one sees it unlocked. A claim found is ours to take
 * only once we hold its lock and it is still the one at the name. */
void claim_output(const char *out)
{
	char *lock = lock_name(out), *mine = xasprintf("%s.%d", lock, (int)getpid());
	int fd = create_excl(mine, 0644);
	char pid[32];
	int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());

	if (fd < 0)
		die(2, "%s: cannot claim the trace's name:", mine);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 || write_full(fd, pid, (size_t)n) < 0) {
		unlink(mine);
		die(2, "%s: cannot claim the trace's name:", mine);
	}
	for (int tries = 0;; tries++) {
		if (link(mine, lock) == 0)
			break;
		if (errno != EEXIST || tries == 100) {
			unlink(mine);
			die(2, "%s: cannot claim the trace's name:", lock);
		}
		int held = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (held < 0) {
			if (errno == ENOENT)
				continue;	/* released meanwhile */
			unlink(mine);
			die(2, "%s: cannot claim the trace's name:", lock);
		}
		if (flock(held, LOCK_EX | LOCK_NB) < 0) {
			char who[32] = "";
			ssize_t r = read(held, who, sizeof(who) - 1);

			who[r > 0 ? r : 0] = 0;
			who[strcspn(who, "\n")] = 0;
			unlink(mine);
			die(2, "%s: another capture%s%s is writing this trace (its claim: %s)",
			    out, *who ? " (pid " : "", *who ? xasprintf("%s)", who) : "", lock);
		}
		/* a dead capture's: gone, unless someone took it first */
		if (same_file(held, lock))
			unlink(lock);
		close(held);
	}
	unlink(mine);
	free(mine);
	claim_path = lock;
	claim_fd = fd;
	claim_owner = getpid();
	atexit(claim_drop);
}
