// SPDX-License-Identifier: GPL-2.0
/*
 * runas UID GID PROGRAM [ARGS...] - run PROGRAM with the given real,
 * effective and saved uid/gid and no supplementary groups.
 *
 * The VM tests run commands as an unprivileged user.  busybox's su would
 * need a setuid binary and a password database it is happy with; this is
 * all that is needed from pid-1's root shell.  Built statically by
 * tests/vm/run so that it needs nothing from the guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long parse_id(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *s == '\0' || *end != '\0') {
		fprintf(stderr, "runas: bad id '%s'\n", s);
		exit(127);
	}
	return v;
}

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 4) {
		fprintf(stderr, "usage: runas UID GID PROGRAM [ARGS...]\n");
		return 127;
	}
	uid = parse_id(argv[1]);
	gid = parse_id(argv[2]);

	/* Groups first: once the uid is dropped we may no longer change them. */
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		perror("runas: dropping privileges");
		return 127;
	}
	/* A uid that can come back would make --user tests prove nothing. */
	if (uid != 0 && setuid(0) == 0) {
		fprintf(stderr, "runas: could regain root, refusing to run\n");
		return 127;
	}
	execvp(argv[3], argv + 3);
	fprintf(stderr, "runas: %s: %s\n", argv[3], strerror(errno));
	return 127;
}
