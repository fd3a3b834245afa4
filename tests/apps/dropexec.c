/*
 * dropexec UID PROGRAM ARGS...: give up root as a server or runuser
 * does (groups, gid, uid, by the raw system calls a static program
 * makes), then exec PROGRAM (capture-privdrop.sh, dynamic and static).
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: dropexec UID PROGRAM ARGS...\n");
		return 2;
	}
	uid_t uid = (uid_t)atol(argv[1]);
	gid_t gid = (gid_t)uid;

	if (setgroups(1, &gid) < 0 || setgid(gid) < 0 || setuid(uid) < 0) {
		perror("dropexec: setuid");
		return 1;
	}
	execv(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
