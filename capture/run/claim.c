/*
 * The trace's name claimed for as long as the capture runs: two captures
 * running at once never write one file (the ranks of an mpirun given one
 * -o, two shells given one name). The claim is a file of the host's, in
 * /dev/shm (else $TMPDIR, /tmp), not beside the trace, where a killed
 * capture would leave it: island-claim.UID.DEV.INO.NAME, DEV and INO the
 * trace's directory's, held with flock(). A killed capture's claim is a
 * file no one holds, which the next one takes over. One capture after
 * another still replaces the trace, as it always did.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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

static const char *claim_dir(void)
{
	const char *t = getenv("TMPDIR");

	if (access("/dev/shm", W_OK | X_OK) == 0)
		return "/dev/shm";
	return t && *t ? t : "/tmp";
}

/* The claim's name: the directory by its device and inode (one name for
 * every path to it), the trace by its name there (a long one hashed) */
static char *lock_name(const char *out)
{
	const char *slash = strrchr(out, '/');
	char *dir = slash ? (slash == out ? xstrdup("/") :
			     xasprintf("%.*s", (int)(slash - out), out)) : xstrdup(".");
	const char *base = slash ? slash + 1 : out;
	struct stat st;

	if (stat(dir, &st) < 0)
		die(2, "%s: cannot claim the trace's name:", dir);
	free(dir);
	if (strlen(base) > 160) {
		uint64_t h = 14695981039346656037ull;
		for (const char *p = base; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
		return xasprintf("%s/island-claim.%u.%llu.%llu.%016llx", claim_dir(),
				 (unsigned)getuid(), (unsigned long long)st.st_dev,
				 (unsigned long long)st.st_ino, (unsigned long long)h);
	}
	return xasprintf("%s/island-claim.%u.%llu.%llu.%s", claim_dir(), (unsigned)getuid(),
			 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, base);
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
	int fd = create_excl(mine, 0600);
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
		struct stat hs;
		if (fstat(held, &hs) < 0 || hs.st_uid != getuid()) {
			unlink(mine);
			die(2, "%s: cannot claim the trace's name: the file there is not ours", lock);
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
