/*
 * Pass 1 of the writer: replay each process's descriptor table in time
 * order (a merge of its threads' records) so that every call knows the
 * file, socket or pipe it used; count per-object usage; derive thread and
 * process facts (start, end, name, status).
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "capture.h"
#include "capture/spool/callinfo.h"
#include "util.h"

/* Data calls on a socket or pipe are network traffic. */
int res_of(const struct cap_node *n, const struct rec *r)
{
	int res = call_info[r->call].res;

	if ((res == RES_FILEREAD || res == RES_FILEWRITE) && r->obj) {
		const struct obj *o = &n->objs[r->obj - 1];
		if (o->kind == OBJ_SOCKET || o->kind == OBJ_PIPE)
			return res == RES_FILEREAD ? RES_NETRECV : RES_NETSEND;
		/* an event counter, timer, signal queue, inotify: a read
		 * waits for an event, a write posts one */
		if (o->event)
			return res == RES_FILEREAD ? RES_WAIT : RES_SYS;
	}
	return res;
}

/* --- objects ---------------------------------------------------------- */

struct resolver {
	struct cap_node *n;
	size_t objcap;
	/* open addressing: path -> obj, inode -> obj */
	int *pmap, *imap;
	size_t pcap, icap, pcount, icount;
	pid_t pid;                   /* the record being applied: its */
	uint64_t t;                  /* process and start (obj_new) */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int obj_new(struct resolver *rs, int kind)
{
	struct cap_node *n = rs->n;

	XGROW(n->objs, rs->objcap, (size_t)n->nobjs + 1);
	struct obj *o = &n->objs[n->nobjs];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	strcpy(o->direction, "none");
	o->made_pid = rs->pid;
	o->made_t = rs->t;
	return ++n->nobjs;          /* ids start at 1 */
}

static void map_grow(int **map, size_t *cap, size_t count,
		     uint64_t (*key)(struct resolver *, int), struct resolver *rs)
{
	if ((count + 1) * 2 <= *cap)
		return;
	size_t nc = *cap ? *cap * 2 : 1024;
	int *nm = xcalloc(nc, sizeof(int));
	for (size_t i = 0; i < *cap; i++) {
		if (!(*map)[i])
			continue;
		size_t j = key(rs, (*map)[i]) & (nc - 1);
		while (nm[j])
			j = (j + 1) & (nc - 1);
		nm[j] = (*map)[i];
	}
	free(*map);
	*map = nm;
	*cap = nc;
}

static uint64_t pkey(struct resolver *rs, int id)
{
	return hash_str(rs->n->objs[id - 1].name);
}

static uint64_t ikey(struct resolver *rs, int id)
{
	return rs->n->objs[id - 1].ino * 0x9e3779b97f4a7c15ull;
}

static int obj_file(struct resolver *rs, const char *path)
{
	map_grow(&rs->pmap, &rs->pcap, rs->pcount, pkey, rs);
	size_t j = hash_str(path) & (rs->pcap - 1);
	while (rs->pmap[j]) {
		if (!strcmp(rs->n->objs[rs->pmap[j] - 1].name, path))
			return rs->pmap[j];
		j = (j + 1) & (rs->pcap - 1);
	}
	int id = obj_new(rs, path[0] == '/' ? OBJ_FILE : OBJ_OTHER);
	rs->n->objs[id - 1].event = !strncmp(path, "anon_inode:", 11) &&
				    strcmp(path, "anon_inode:[eventpoll]");
	rs->n->objs[id - 1].name = xstrdup(path);
	rs->pmap[j] = id;
	rs->pcount++;
	return id;
}

static int obj_ino(struct resolver *rs, uint64_t ino, int kind)
{
	if (!ino)
		return obj_new(rs, kind);
	map_grow(&rs->imap, &rs->icap, rs->icount, ikey, rs);
	size_t j = (ino * 0x9e3779b97f4a7c15ull) & (rs->icap - 1);
	while (rs->imap[j]) {
		if (rs->n->objs[rs->imap[j] - 1].ino == ino)
			return rs->imap[j];
		j = (j + 1) & (rs->icap - 1);
	}
	int id = obj_new(rs, kind);
	rs->n->objs[id - 1].ino = ino;
	rs->imap[j] = id;
	rs->icount++;
	return id;
}

static void sock_proto(struct obj *o, int domain, int type)
{
	type &= 0xf;
	if (domain == AF_INET || domain == AF_INET6)
		strcpy(o->proto, type == SOCK_STREAM ? "tcp" :
				 type == SOCK_DGRAM ? "udp" : "raw");
	else if (domain == AF_UNIX)
		strcpy(o->proto, type == SOCK_STREAM ? "unix-stream" : "unix-dgram");
	else if (domain)
		strcpy(o->proto, "other");
}

static void set_addr(char **dst, const struct sockaddr_storage *sa, uint32_t len)
{
	char buf[300];

	if (!len)
		return;
	/* the record's own length, which the application could overwrite
	 * (tests/fuzz/spool: a read past the address) */
	if (len > sizeof(*sa))
		len = sizeof(*sa);
	fmt_sockaddr(buf, sizeof(buf), sa, len);
	if (!buf[0])
		return;
	free(*dst);
	*dst = xstrdup(buf);
}

static int obj_sock(struct resolver *rs, const struct sockinfo *si)
{
	int id = obj_ino(rs, si->ino, OBJ_SOCKET);
	struct obj *o = &rs->n->objs[id - 1];

	if (!o->proto[0])
		sock_proto(o, si->domain, si->type);
	set_addr(&o->local, &si->local, si->llen);
	set_addr(&o->peer, &si->peer, si->plen);
	return id;
}

/* --- paths ------------------------------------------------------------ */

/* Join base and p, and resolve ".", ".." and "//" lexically. */
char *path_join(const char *base, const char *p)
{
	size_t bl = base ? strlen(base) : 0, pl = strlen(p);
	char *buf = xmalloc(bl + pl + 3), *out;
	char *parts[4096];
	int np = 0;

	if (p[0] == '/' || !bl)
		snprintf(buf, bl + pl + 3, "%s%s", p[0] == '/' ? "" : "/", p);
	else
		snprintf(buf, bl + pl + 3, "%s/%s", base, p);
	for (char *s = strtok(buf, "/"); s; s = strtok(NULL, "/")) {
		if (!strcmp(s, "."))
			continue;
		if (!strcmp(s, "..")) {
			if (np)
				np--;
			continue;
		}
		if (np < 4096)
			parts[np++] = s;
	}
	out = xmalloc(bl + pl + 3);
	out[0] = 0;
	char *q = out;
	for (int i = 0; i < np; i++) {
		*q++ = '/';
		size_t l = strlen(parts[i]);
		memcpy(q, parts[i], l);
		q += l;
	}
	if (q == out)
		*q++ = '/';
	*q = 0;
	free(buf);
	return out;
}

/* --- per process ------------------------------------------------------ */

/* A file mapping of the process (mmap of a descriptor). */
struct mapping {
	uint64_t start, end;
	int obj;
};

struct fdtab {
	int *obj;                    /* fd -> object id, 0 = unknown */
	size_t cap;
	char *cwd;
	struct mapping *map;         /* its file mappings, unsorted */
	size_t nmap, capmap;
};

/* The file mapped at addr, or 0. */
static int map_find(const struct fdtab *f, uint64_t addr)
{
	for (size_t i = 0; i < f->nmap; i++)
		if (addr >= f->map[i].start && addr < f->map[i].end)
			return f->map[i].obj;
	return 0;
}

/* Forget [a, b): mappings inside go, those across are cut. Returns the
 * file of the first one met, or 0. */
static int map_remove(struct fdtab *f, uint64_t a, uint64_t b)
{
	int first = 0;

	for (size_t i = 0; i < f->nmap; ) {
		struct mapping *m = &f->map[i];
		if (m->end <= a || m->start >= b) {
			i++;
			continue;
		}
		if (!first)
			first = m->obj;
		if (m->start < a && m->end > b) {        /* a hole in the middle */
			struct mapping tail = { b, m->end, m->obj };
			m->end = a;
			XGROW(f->map, f->capmap, f->nmap + 1);
			f->map[f->nmap++] = tail;
			i++;
		} else if (m->start < a) {
			m->end = a;
			i++;
		} else if (m->end > b) {
			m->start = b;
			i++;
		} else {
			f->map[i] = f->map[--f->nmap];
		}
	}
	return first;
}

static int fd_get(struct fdtab *f, int fd)
{
	return fd >= 0 && (size_t)fd < f->cap ? f->obj[fd] : 0;
}

/* No descriptor reaches the kernel's nr_open: a larger one in a spool is
 * a stray write there (tests/fuzz/spool), not a table of gigabytes. */
static int fd_possible(int fd)
{
	static long nr_open;

	if (!nr_open) {
		FILE *f = fopen("/proc/sys/fs/nr_open", "r");

		if (!f || fscanf(f, "%ld", &nr_open) != 1 || nr_open <= 0)
			nr_open = 1 << 20;
		if (f)
			fclose(f);
	}
	return fd >= 0 && fd < nr_open;
}

static void fd_bind(struct resolver *rs, struct fdtab *f, int fd, int id)
{
	if (!fd_possible(fd))
		return;
	if ((size_t)fd >= f->cap) {
		size_t nc = f->cap ? f->cap : 64;
		while (nc <= (size_t)fd)
			nc *= 2;
		f->obj = xrealloc(f->obj, nc * sizeof(int));
		memset(f->obj + f->cap, 0, (nc - f->cap) * sizeof(int));
		f->cap = nc;
	}
	if (f->obj[fd])
		rs->n->objs[f->obj[fd] - 1].open_fds--;
	f->obj[fd] = id;
	if (id)
		rs->n->objs[id - 1].open_fds++;
}

static const char *dir_of(struct resolver *rs, struct fdtab *f, int dirfd)
{
	if (dirfd == AT_FDCWD)
		return f->cwd;
	int id = fd_get(f, dirfd);
	if (id && rs->n->objs[id - 1].kind == OBJ_FILE)
		return rs->n->objs[id - 1].name;
	return f->cwd;
}

static int obj_path(struct resolver *rs, struct fdtab *f, int dirfd,
		    const char *p)
{
	char *abs = path_join(dir_of(rs, f, dirfd), p);
	int id = obj_file(rs, abs);
	free(abs);
	return id;
}

/* sendfile, copy_file_range and splice read their source too: a2 holds
 * the source fd, and after resolution also its object (high 32 bits). */
static int is_copy(int call)
{
	return call == C_SENDFILE || call == C_COPY_FILE_RANGE || call == C_SPLICE ||
	       call == C_TEE;
}

static void count_use(struct cap_node *n, struct rec *r)
{
	/* obj numbers come from records the application could overwrite
	 * (the spool is mapped in it): one past the objects counts nothing
	 * (tests/fuzz/spool: an index past objs) */
	if (r->obj > (uint32_t)n->nobjs)
		r->obj = 0;
	if (!rec_counts(r))
		return;
	/* tee leaves its source's data in place: only the copies consume it */
	if (is_copy(r->call) && r->call != C_TEE && copy_src_obj(r) > 0 &&
	    copy_src_obj(r) <= n->nobjs && r->ret >= 0 && !r->err) {
		struct obj *src = &n->objs[copy_src_obj(r) - 1];
		src->reads++;
		src->bytes_read += (uint64_t)r->ret;
		if (src->kind == OBJ_FILE)
			src->listed = 1;
	}
	if (!r->obj)
		return;
	struct obj *o = &n->objs[r->obj - 1];
	int res = res_of(n, r);
	int64_t a = amount_of(r);

	switch (res) {
	case RES_FILEREAD:
	case RES_NETRECV:
		if (call_info[r->call].amount != AMT_NONE) {
			o->reads++;
			o->bytes_read += (uint64_t)a;
		}
		break;
	case RES_FILEWRITE:
	case RES_NETSEND:
		if (call_info[r->call].amount != AMT_NONE) {
			o->writes++;
			o->bytes_written += (uint64_t)a;
		}
		break;
	}
	if (o->kind == OBJ_FILE && (o->reads || o->writes || o->opens))
		o->listed = 1;
	/* an inherited socket or pipe is the app's once it uses it: a stray
	 * descriptor of whoever started the app, closed unused, is not */
	if ((o->kind == OBJ_SOCKET || o->kind == OBJ_PIPE) &&
	    call_info[r->call].effect != EFF_CLOSE)
		o->listed = 1;
}

static void apply(struct resolver *rs, struct proc *p, struct fdtab *f,
		  struct rec *r)
{
	char *pl = REC_PAYLOAD(r);
	size_t plen = REC_PAYLOAD_LEN(r);
	int ok = r->err == 0 && r->ret >= 0;

	rs->pid = p->pid;
	rs->t = r->t0;

	if (r->call == REC_PROC) {
		/* exe \0 cwd \0 args: a new image starts with a fresh table */
		char *exe = pl, *cwd = memchr(pl, 0, plen);
		cwd = cwd ? cwd + 1 : pl;
		if (!p->first_exe)
			p->first_exe = xstrdup(exe);
		free(p->exe);
		p->exe = xstrdup(exe);
		p->exec_images += r->a2 == ORIGIN_EXEC;
		if (!p->cwd)
			p->cwd = xstrdup(cwd);
		if (p->ppid == 0)
			p->ppid = (pid_t)r->a1;
		for (size_t i = 0; i < f->cap; i++)
			fd_bind(rs, f, (int)i, 0);
		free(f->cwd);
		f->cwd = xstrdup(cwd);
		return;
	}
	if (r->call == REC_FDINFO) {
		int id;
		if (r->a1 == FDK_SOCKET)
			id = obj_sock(rs, (struct sockinfo *)pl);
		else if (r->a1 == FDK_PIPE) {
			id = obj_ino(rs, *(uint64_t *)pl, OBJ_PIPE);
			strcpy(rs->n->objs[id - 1].proto, "pipe");
		} else
			id = obj_file(rs, pl);
		fd_bind(rs, f, r->fd, id);
		return;
	}
	if (r->call >= C_NCALLS)
		return;
	int eff = call_info[r->call].effect;
	/* a call that names a path but has none: the program's pointer
	 * pointed nowhere (the call failed, appmem.c), no file named */
	if (!plen && (eff == EFF_OPEN || eff == EFF_PATH || eff == EFF_REOPEN ||
		      (eff == EFF_CWD && r->call == C_CHDIR))) {
		r->obj = 0;
		if (two_paths(r->call))
			r->a1 = 0;
		count_use(rs->n, r);
		return;
	}

	switch (eff) {
	case EFF_USE:
	case EFF_FDOPEN:
		r->obj = (uint32_t)fd_get(f, r->fd);
		if (is_copy(r->call))
			r->a2 = (int64_t)(((uint64_t)fd_get(f, (int)r->a2) << 32) |
					  (uint32_t)r->a2);
		break;
	case EFF_OPEN:
		r->obj = (uint32_t)obj_path(rs, f, (int)r->a2, pl);
		if (ok) {
			if (rec_counts(r))
				rs->n->objs[r->obj - 1].opens++;
			rs->n->objs[r->obj - 1].listed = 1;
			fd_bind(rs, f, r->fd, (int)r->obj);
		}
		break;
	case EFF_ANON:		/* a name, not a path: as inherited */
		r->obj = (uint32_t)obj_file(rs, plen ? pl : "anon_inode:");
		if (ok)
			fd_bind(rs, f, r->fd, (int)r->obj);
		break;
	case EFF_REOPEN:
		fd_bind(rs, f, (int)r->a1, 0);
		if (pl[0]) {
			r->obj = (uint32_t)obj_path(rs, f, AT_FDCWD, pl);
			if (ok && rec_counts(r))
				rs->n->objs[r->obj - 1].opens++;
		}
		if (ok)
			fd_bind(rs, f, r->fd, (int)r->obj);
		break;
	case EFF_CLOSE:
		r->obj = (uint32_t)fd_get(f, r->fd);
		if (ok) {
			if (r->call == C_CLOSE_RANGE) {
				for (int64_t fd = r->fd; fd <= r->a1 && (size_t)fd < f->cap; fd++)
					fd_bind(rs, f, (int)fd, 0);
			} else {
				fd_bind(rs, f, r->fd, 0);
			}
		}
		break;
	case EFF_DUP:
		r->obj = (uint32_t)fd_get(f, (int)r->a1);
		if (ok)                 /* the wrappers record the new fd as fd */
			fd_bind(rs, f, r->fd, (int)r->obj);
		break;
	case EFF_FCNTL:
		r->obj = (uint32_t)fd_get(f, r->fd);
		if (ok && (r->a1 == F_DUPFD || r->a1 == F_DUPFD_CLOEXEC))
			fd_bind(rs, f, (int)r->ret, (int)r->obj);
		break;
	case EFF_SOCKET:
		if (ok) {
			struct sockinfo *si = (struct sockinfo *)pl;
			si->domain = (int32_t)r->a1;
			si->type = (int32_t)r->a2;
			r->obj = (uint32_t)obj_sock(rs, si);
			fd_bind(rs, f, r->fd, (int)r->obj);
		}
		break;
	case EFF_PAIR:
		if (ok) {
			uint64_t *ino = (uint64_t *)pl;
			int pipe = r->call == C_PIPE;
			for (int k = 0; k < 2; k++) {
				int id = obj_ino(rs, ino[k], pipe ? OBJ_PIPE : OBJ_SOCKET);
				struct obj *o = &rs->n->objs[id - 1];
				o->listed = 1;
				if (pipe)
					strcpy(o->proto, "pipe");
				else
					sock_proto(o, AF_UNIX, (int)r->a2 & 0xff);
				fd_bind(rs, f, k ? (int)r->a1 : r->fd, id);
				if (!k)
					r->obj = (uint32_t)id;
			}
		}
		break;
	case EFF_ACCEPT:
	case EFF_CONNECT:
	case EFF_BIND: {
		struct sockinfo *si = (struct sockinfo *)pl;
		if (REC_PAYLOAD_LEN(r) < sizeof(*si))	/* cut or overwritten */
			break;
		if (call_info[r->call].effect == EFF_ACCEPT) {
			if (!ok)
				break;
			int lid = fd_get(f, (int)r->a1);
			r->obj = (uint32_t)obj_sock(rs, si);
			struct obj *o = &rs->n->objs[r->obj - 1];
			if (lid && !o->proto[0])
				strcpy(o->proto, rs->n->objs[lid - 1].proto);
			strcpy(o->direction, "in");
			fd_bind(rs, f, r->fd, (int)r->obj);
		} else {
			int id = fd_get(f, r->fd);
			if (id) {
				struct obj *o = &rs->n->objs[id - 1];
				set_addr(&o->local, &si->local, si->llen);
				if (call_info[r->call].effect == EFF_CONNECT) {
					set_addr(&o->peer, &si->peer, si->plen);
					strcpy(o->direction, "out");
				}
			}
			r->obj = (uint32_t)id;
		}
		break;
	}
	case EFF_PATH:
		if (r->call == C_EXECVE) {
			r->obj = pl[0] ? (uint32_t)obj_path(rs, f, AT_FDCWD, pl) : 0;
			if (ok && r->obj) {
				free(p->exec_path);
				p->exec_path = xstrdup(rs->n->objs[r->obj - 1].name);
				p->execs++;
			}
			break;
		}
		if (r->call == C_FSTATAT || r->call == C_STATX) {
			if (!pl[0]) {    /* AT_EMPTY_PATH: the fd itself */
				r->obj = (uint32_t)fd_get(f, r->fd);
				break;
			}
		}
		r->obj = (uint32_t)obj_path(rs, f, (int)r->a2, pl);
		if (two_paths(r->call)) {
			char *p2 = memchr(pl, 0, plen);
			if (p2 && (size_t)(p2 + 1 - pl) < plen)
				r->a1 = obj_path(rs, f, (int)r->a1, p2 + 1);
			else
				r->a1 = 0;
		}
		break;
	case EFF_MAP:
		r->obj = (uint32_t)fd_get(f, r->fd);
		/* a system call its libc record stands for (SEQ_DROP, just
		 * before it): the mapping is that record's to make or undo */
		if (ok && r->obj && r->a1 > 0 && !(r->seq & SEQ_DROP)) {
			XGROW(f->map, f->capmap, f->nmap + 1);
			f->map[f->nmap++] = (struct mapping){ (uint64_t)r->ret,
				(uint64_t)r->ret + (uint64_t)r->a1, (int)r->obj };
		}
		break;
	case EFF_UNMAP:
		if (ok && !(r->seq & SEQ_DROP))
			r->obj = (uint32_t)map_remove(f, (uint64_t)r->a2,
						      (uint64_t)r->a2 + (uint64_t)r->a1);
		else
			r->obj = (uint32_t)map_find(f, (uint64_t)r->a2);
		break;
	case EFF_MSYNC:
		r->obj = (uint32_t)map_find(f, (uint64_t)r->a2);
		break;
	case EFF_POPEN:
		if (ok && plen >= sizeof(uint64_t)) {
			uint64_t ino;
			memcpy(&ino, pl, sizeof(ino));
			int id = obj_ino(rs, ino, OBJ_PIPE);
			struct obj *o = &rs->n->objs[id - 1];
			strcpy(o->proto, "pipe");
			o->listed = 1;
			fd_bind(rs, f, r->fd, id);
			r->obj = (uint32_t)id;
		}
		break;
	case EFF_CWD:
		if (r->call == C_CHDIR)
			r->obj = (uint32_t)obj_path(rs, f, AT_FDCWD, pl);
		else
			r->obj = (uint32_t)fd_get(f, r->fd);
		if (ok && r->obj && rs->n->objs[r->obj - 1].name) {
			free(f->cwd);
			f->cwd = xstrdup(rs->n->objs[r->obj - 1].name);
		}
		break;
	}
	count_use(rs->n, r);
}

/*
 * Merge the threads of a process by the time each call acts on the
 * descriptor table: a call that yields a descriptor when it returns (an
 * open in one thread can start before another thread's close frees the
 * number it gets), any other call when it starts. Within a thread the keys
 * still rise, since calls do not overlap.
 */
struct cursor {
	struct rec_iter it;
	struct rec *cur;
	uint64_t key;
};

static int yields_fd(const struct rec *r)
{
	if (r->call >= C_NCALLS)          /* REC_PROC, REC_FDINFO */
		return 0;
	switch (call_info[r->call].effect) {
	case EFF_OPEN: case EFF_DUP: case EFF_FCNTL: case EFF_SOCKET:
	case EFF_PAIR: case EFF_ACCEPT: case EFF_REOPEN: case EFF_POPEN:
	case EFF_ANON:
		return 1;
	}
	return 0;
}

/* Which of the later passes want to see r. */
static unsigned seen_of(const struct rec *r)
{
	switch (r->call) {
	case C_SYSTEM: case C_POPEN: case C_PCLOSE: case C_WAITPID:
	case C_WAIT4: case C_WAITCALL: case C_WAIT3: case C_WAITID:
		return SEEN_STATUS;
	case REC_MODULE: case REC_SAMPLE: case C_PTHREAD_CREATE: case C_FORK:
	case C_POSIX_SPAWN: case C_CLONE: case C_VFORK: case REC_AIO_GAP:
		return SEEN_GAPS;
	}
	return 0;
}

/* A call site's t0 is an address: it keeps the place of its call */
static struct rec *cur_next(struct cursor *c)
{
	struct rec *r = c->cur = rec_next(&c->it);
	struct thr *t = c->it.t;

	if (r && r->call != REC_SITE) {
		c->key = yields_fd(r) ? r->t1 : r->t0;
		t->last_t1 = r->t1 > t->last_t1 || !t->any ? r->t1 : t->last_t1;
		t->any = 1;
	}
	if (r)
		t->seen |= seen_of(r);
	return r;
}

static int cur_less(const struct cursor *a, const struct cursor *b)
{
	return a->key < b->key;
}

static void heap_down(struct cursor *h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && cur_less(&h[l], &h[m]))
			m = l;
		if (r < n && cur_less(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		struct cursor tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

/* streaming: where a process's resolution stopped */
struct pstream {
	struct cursor *c;            /* its threads', as p->thr's first nc */
	char *claimed;               /* ... made by a pthread_create applied */
	int nc, capc, capcl;
	struct fdtab f;
	struct made { pid_t creator; uint64_t t0; } *made; /* pthread_creates
							       whose thread is
							       not seen yet */
	size_t nmade, capmade;
	uint64_t last;               /* the latest key applied */
	int paused;                  /* the rest waits for the end */
	int nomade;                  /* of the nc, headers without made_at */
};

static void resolve_proc(struct resolver *rs, struct proc *p)
{
	struct cursor *h = xcalloc((size_t)p->nthr, sizeof(*h));
	struct fdtab f = { 0 };
	struct pstream *ps = p->ps;
	int n = 0;

	for (int i = 0; i < p->nthr; i++) {
		if (ps && i < ps->nc) {	/* from where streaming stopped */
			h[n] = ps->c[i];
			h[n].it.t = &p->thr[i];
			if (h[n].cur || cur_next(&h[n]))
				n++;
			continue;
		}
		rec_iter_init(&h[n].it, &p->thr[i]);
		if (cur_next(&h[n]))
			n++;
	}
	if (ps) {
		f = ps->f;
		free(ps->c);
		free(ps->claimed);
		free(ps->made);
		free(ps);
		p->ps = NULL;
	}
	for (int i = n / 2 - 1; i >= 0; i--)
		heap_down(h, n, i);
	while (n) {
		apply(rs, p, &f, h[0].cur);
		h[0].it.t->napplied++;	/* (the end's parts write up to it) */
		if (!cur_next(&h[0]))
			h[0] = h[--n];
		heap_down(h, n, 0);
	}
	free(h);
	free(f.obj);
	free(f.cwd);
	free(f.map);
}

/* Thread and process facts from the spool headers and records. */
static void derive_thread(struct cap_node *n, struct thr *t)
{
	struct spool_hdr *first = t->sp[0]->h, *last = t->sp[t->nsp - 1]->h;
	uint64_t last_t1 = t->last_t1;	/* resolve_proc's pass */
	int any = t->any;

	t->start = clock_ns(&n->clk, (uint64_t)first->start);
	t->creator = first->creator;
	/* the spool is the application's memory too: a stray write there
	 * must not index past exit_names (found by tests/fuzz/spool) */
	t->exit = last->exit >= TEXIT_NONE && last->exit <= TEXIT_EXEC ? last->exit : TEXIT_NONE;
	t->complete = t->exit != TEXIT_NONE;
	t->status = last->status > 0 && last->status <= 256 ? last->status : 0;
	t->end = t->complete ? clock_ns(&n->clk, (uint64_t)last->end) : t->start;
	if (any && clock_ns(&n->clk, last_t1) > t->end)
		t->end = clock_ns(&n->clk, last_t1);
	if (t->end < t->start)
		t->end = t->start;
	t->cpu = t->complete ? last->cpu_ns : -1;
	/* the interposer wrote no last snapshot (prof_tail) for a thread
	 * its process's end found running */
	if (n->profile && last->prof_last && t->cpu >= 0 &&
	    (t->exit == TEXIT_PROCESS || t->exit == TEXIT_EXEC)) {
		t->tail = 1;
		t->tail_since = clock_ns(&n->clk, (uint64_t)last->prof_last);
		t->tail_cpu = t->cpu > last->prof_last_cpu ? t->cpu - last->prof_last_cpu : 0;
		t->tail_alloc = (int64_t)last->prof_alloc;
		t->tail_allocs = (int64_t)last->prof_allocs;
	}
	memcpy(t->name, last->comm_end[0] ? last->comm_end : last->comm, 16);
	t->name[16] = 0;
	for (int g = 0; g < t->nsp; g++)
		if (!t->sp[g]->seg) {	/* an image's segments share its header */
			t->lost += t->sp[g]->h->lost;
			t->nested += t->sp[g]->h->nested;
		}
}

static int cmp_thr(const void *a, const void *b)
{
	const struct thr *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

int64_t thread_start(const struct cap_node *n, pid_t pid, const struct thr *t)
{
	int64_t s = clock_ns(&n->clk, (uint64_t)t->sp[0]->h->start);

	/* the interposer starts the thread after exec and the dynamic
	 * loader, whose CPU time its cpu counts: the process island-capture
	 * ran starts when it was forked (a forked child's start is its fork
	 * already) */
	if (t->tid == pid && pid == n->app_pid && n->app_fork >= 0 && n->app_fork < s)
		s = n->app_fork;
	return s;
}

static void derive_proc(struct cap_node *n, struct proc *p)
{
	for (int i = 0; i < p->nthr; i++) {
		derive_thread(n, &p->thr[i]);
		p->thr[i].start = thread_start(n, p->pid, &p->thr[i]);
	}
	qsort(p->thr, (size_t)p->nthr, sizeof(*p->thr), cmp_thr);
	/* the main thread (tid == pid) first */
	for (int i = 1; i < p->nthr; i++)
		if (p->thr[i].tid == p->pid) {
			struct thr m = p->thr[i];
			memmove(&p->thr[1], &p->thr[0], sizeof(m) * (size_t)i);
			p->thr[0] = m;
		}
	/* the new image's own word (/proc/self/exe, links resolved) over
	 * the path its exec was given, where it said it */
	if (p->exec_path && p->execs > p->exec_images) {
		free(p->exe);
		p->exe = xstrdup(p->exec_path);
	}
	p->start = p->nthr ? p->thr[0].start : 0;
	p->end = p->start;
	p->complete = 1;
	for (int i = 0; i < p->nthr; i++) {
		if (p->thr[i].start < p->start)
			p->start = p->thr[i].start;
		if (p->thr[i].end > p->end)
			p->end = p->thr[i].end;
		if (!p->thr[i].complete)
			p->complete = 0;
	}
}

/* system() reaps its shell internally: the shell is the child of the
 * caller that started during the call. Its pid goes in the record's a2
 * (unused by system) for the writer. */
/* A process's main thread (tid = pid), NULL when it has none */
static const struct thr *main_thr(const struct proc *c)
{
	for (int j = 0; j < c->nthr; j++)
		if (c->thr[j].tid == c->pid)
			return &c->thr[j];
	return NULL;
}

/* The thread whose call made process c, as its header says (its first
 * image's, or under --syscalls the one after the spawn's own calls in
 * the child); 0 when it does not; *at the call's t0 when it names the
 * call too, else 0 (the call of that thread under way when c started) */
static pid_t made_by(const struct proc *c, uint64_t *at)
{
	const struct thr *m = main_thr(c);

	*at = 0;
	for (int g = 0; m && g < m->nsp; g++)
		if (m->sp[g]->h->made_by) {
			*at = (uint64_t)m->sp[g]->h->made_at;
			return m->sp[g]->h->made_by;
		}
	return 0;
}

/* The processes by what made them: the call their header names (at:
 * made_at), the thread that names no call (bytid), and the parent
 * (byppid), each by its main thread's start (the spool's clock); made
 * again when spools came since (streaming). A walk of every process for
 * each system or popen call was quadratic: made_by was a fifth of a
 * 4,000-shell script's capture. */
struct madeix {
	struct imap at;
	struct keyed *bytid, *byppid;
	int ntid, nppid;
	uint64_t spools;
	int of;
};

/* Processes by a number (a pid, the tid or the parent that made them),
 * then start: sorted, then searched (keyed_from) */
static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The first of v[0..nv) with key and a start at t or after; nv if none */
static int keyed_from(const struct keyed *v, int nv, pid_t key, int64_t t)
{
	int lo = 0, hi = nv;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (v[mid].key < key || (v[mid].key == key && v[mid].start < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nv && v[lo].key == key ? lo : nv;
}

static struct madeix *by_maker(struct cap_node *n)
{
	struct madeix *x = n->made;

	if (x && x->of == n->nprocs && x->spools == n->spools)
		return x;
	if (x) {
		imap_free(&x->at);
	} else {
		x = n->made = xcalloc(1, sizeof(*x));
	}
	x->bytid = xrealloc(x->bytid, sizeof(*x->bytid) * (size_t)(n->nprocs + 1));
	x->byppid = xrealloc(x->byppid, sizeof(*x->byppid) * (size_t)(n->nprocs + 1));
	x->ntid = x->nppid = 0;
	for (int k = 0; k < n->nprocs; k++) {
		const struct thr *m = main_thr(&n->procs[k]);
		uint64_t at;
		pid_t by = made_by(&n->procs[k], &at);

		if (by && at)
			imap_put(&x->at, at, k);
		if (!m)
			continue;
		int64_t s = m->sp[0]->h->start;
		if (by && !at)
			x->bytid[x->ntid++] = (struct keyed){ by, s, k };
		x->byppid[x->nppid++] = (struct keyed){ n->procs[k].ppid, s, k };
	}
	qsort(x->bytid, (size_t)x->ntid, sizeof(*x->bytid), cmp_keyed);
	qsort(x->byppid, (size_t)x->nppid, sizeof(*x->byppid), cmp_keyed);
	x->of = n->nprocs;
	x->spools = n->spools;
	return x;
}

static void made_free(struct cap_node *n)
{
	if (!n->made)
		return;
	imap_free(&n->made->at);
	free(n->made->bytid);
	free(n->made->byppid);
	free(n->made);
	n->made = NULL;
}

struct proc *proc_made(struct cap_node *n, pid_t tid, const struct rec *r)
{
	int k = imap_get(&by_maker(n)->at, r->t0);
	uint64_t at;

	return k >= 0 && made_by(&n->procs[k], &at) == tid && at == r->t0 ? &n->procs[k] : NULL;
}

pid_t shell_made(struct cap_node *n, struct thr *t, const struct rec *r)
{
	struct proc *c = proc_made(n, t->tid, r);
	const struct madeix *x = by_maker(n);

	if (c || r->call != C_SYSTEM)
		return c ? c->pid : 0;
	/* the one the thread made while in this call (one at a time) */
	int i = keyed_from(x->bytid, x->ntid, t->tid, (int64_t)r->t0);
	return i < x->ntid && x->bytid[i].start <= (int64_t)r->t1 ? n->procs[x->bytid[i].k].pid : 0;
}

/* A child of the caller r may have made: of thread tid's, started
 * during [t0, t1] (system) or after t0 (popen, t1 < 0), not named yet;
 * when its header names another thread or call, not this one */
static bool may_have_made(const struct proc *c, pid_t caller, pid_t tid,
			  int64_t t0, int64_t t1)
{
	uint64_t at;
	pid_t by = made_by(c, &at);

	if (c->ppid != caller || c->made_claimed || c->start < t0 || (t1 >= 0 && c->start > t1))
		return false;
	return !by || (by == tid && !at);
}

/* system's shell: the one its header says (a call alone in system),
 * else a child of the caller that started during the call, the one
 * that ended last before it returned (system returns once its shell
 * has ended); it gets the call's status */
static void system_status(struct cap_node *n, pid_t caller, pid_t tid, struct rec *r)
{
	int64_t t0 = clock_ns(&n->clk, r->t0), t1 = clock_ns(&n->clk, r->t1);
	struct proc *c = proc_made(n, tid, r);
	bool exact;
	uint64_t at;

	const struct madeix *ix = by_maker(n);

	/* a shell that says which thread made it: one system call of a
	 * thread is under way at a time; else the shells that say nothing
	 * (those that started during the call: by the spool's clock) */
	for (int i = keyed_from(ix->bytid, ix->ntid, tid, (int64_t)r->t0);
	     !c && i < ix->ntid && ix->bytid[i].key == tid && ix->bytid[i].start <= (int64_t)r->t1; i++)
		if (may_have_made(&n->procs[ix->bytid[i].k], caller, tid, t0, t1))
			c = &n->procs[ix->bytid[i].k];
	exact = c != NULL;
	for (int i = keyed_from(ix->byppid, ix->nppid, caller, (int64_t)r->t0);
	     !exact && i < ix->nppid && ix->byppid[i].key == caller &&
	     ix->byppid[i].start <= (int64_t)r->t1; i++) {
		struct proc *x = &n->procs[ix->byppid[i].k];
		if (!may_have_made(x, caller, tid, t0, t1) || made_by(x, &at))
			continue;
		if (!c || (x->end <= t1 && (c->end > t1 || x->end > c->end)))
			c = x;
	}
	if (!c)
		return;
	c->made_claimed = 1;
	if (c->status < 0)
		c->status = (int)r->a1;
	r->a2 = c->pid;
}

/* a process's pclose calls: the stream's descriptor, when, the status */
struct pcl { int fd; uint64_t t0; int status; };

static struct pcl *pcloses_of(struct proc *p, size_t *np)
{
	struct pcl *v = NULL;
	size_t n = 0, cap = 0;

	for (int j = 0; j < p->nthr; j++) {
		struct rec_iter it;
		struct rec *x;

		if (!(p->thr[j].seen & SEEN_STATUS))
			continue;
		rec_iter_init(&it, &p->thr[j]);
		while ((x = rec_next(&it)))
			if (x->call == C_PCLOSE && x->ret >= 0) {
				XGROW(v, cap, n + 1);
				v[n++] = (struct pcl){ x->fd, x->t0, (int)x->ret };
			}
	}
	*np = n;
	return v;
}

/* popen's shell: the one its header says, else the first child of the
 * caller to start after the call did (it may start after popen
 * returned); its pid goes in the record's a2 for the writer; its status,
 * the one the first pclose of the stream's descriptor after the call
 * returned */
static void popen_child(struct cap_node *n, pid_t caller, pid_t tid, struct rec *r,
			const struct pcl *pc, size_t npc)
{
	int64_t t0 = clock_ns(&n->clk, r->t0);
	struct proc *best = proc_made(n, tid, r);
	const struct pcl *by = NULL;
	bool found = best != NULL;
	uint64_t at;

	const struct madeix *ix = by_maker(n);

	/* the shells that say the caller's thread made them first, then
	 * those that say nothing */
	for (int pass = 0; pass < 2 && !found; pass++) {
		const struct keyed *v = pass ? ix->byppid : ix->bytid;
		int nv = pass ? ix->nppid : ix->ntid;
		pid_t key = pass ? caller : tid;
		/* by start: the first that may have is the earliest */
		for (int i = keyed_from(v, nv, key, (int64_t)r->t0); !best && i < nv && v[i].key == key; i++) {
			struct proc *c = &n->procs[v[i].k];
			if (may_have_made(c, caller, tid, t0, -1) &&
			    (made_by(c, &at) == tid) == !pass)
				best = c;
		}
		found = best != NULL;
	}
	if (!best)
		return;
	best->made_claimed = 1;
	r->a2 = best->pid;
	for (size_t k = 0; k < npc; k++)
		if (pc[k].fd == r->fd && pc[k].t0 >= r->t1 && (!by || pc[k].t0 < by->t0))
			by = &pc[k];
	if (by && best->status < 0)
		best->status = by->status;
}

static void index_procs(struct cap_node *n)
{
	free(n->byp);
	n->byp = xmalloc(sizeof(*n->byp) * (size_t)(n->nprocs + 1));
	for (int k = 0; k < n->nprocs; k++)
		n->byp[k] = (struct keyed){ n->procs[k].pid, n->procs[k].start, k };
	n->nbyp = n->nprocs;
	qsort(n->byp, (size_t)n->nbyp, sizeof(*n->byp), cmp_keyed);
}

/* The process pid named at time t (ns): the last of that number to start
 * at or before t (a wait), or with after, the first to start at or after
 * t (the child of a call at t); NULL when none */
static struct proc *proc_when(struct cap_node *n, pid_t pid, int64_t t, bool after)
{
	int i = keyed_from(n->byp, n->nbyp, pid, after ? t : INT64_MIN);
	struct proc *c = NULL;

	if (after)
		return i < n->nbyp ? &n->procs[n->byp[i].k] : NULL;
	for (; i < n->nbyp && n->byp[i].key == pid && n->byp[i].start <= t; i++)
		c = &n->procs[n->byp[i].k];
	return c;
}

/* Statuses of the processes island-capture reaped (orphans, and the one
 * it ran), in the order it reaped them: a number's first such is its
 * first process */
static void statuses_from_reaps(struct cap_node *n)
{
	char *got = xcalloc((size_t)n->nprocs + 1, 1);

	for (int i = 0; i < n->nwait; i++) {
		struct proc *p = NULL;

		/* the first of the number not reaped yet, in start order */
		for (int j = keyed_from(n->byp, n->nbyp, n->wpid[i], INT64_MIN);
		     !p && j < n->nbyp && n->byp[j].key == n->wpid[i]; j++)
			if (!got[n->byp[j].k]) {
				p = &n->procs[n->byp[j].k];
				got[n->byp[j].k] = 1;
			}
		if (!p)
			continue;
		p->status = n->wstatus[i];
		/* a signal ended it: its main thread's CPU, read by launch.c */
		if (p->nthr && p->thr[0].tid == p->pid && p->thr[0].cpu < 0 &&
		    p->thr[0].exit == TEXIT_NONE && n->wcpu && n->wcpu[i] >= 0)
			p->thr[0].cpu = n->wcpu[i];
	}
	free(got);
}

/* Statuses reported to waitpid() calls of the application itself. */
static void statuses_from_waits(struct cap_node *n)
{
	for (int i = 0; i < n->nprocs; i++) {
		size_t npc = 0;
		struct pcl *pc = NULL;
		bool pcl_read = false;	/* its pclose calls, at its first popen */

		for (int j = 0; j < n->procs[i].nthr; j++) {
			struct rec_iter it;
			struct rec *r;
			if (!(n->procs[i].thr[j].seen & SEEN_STATUS))
				continue;
			rec_iter_init(&it, &n->procs[i].thr[j]);
			while ((r = rec_next(&it))) {
				if (r->call == C_SYSTEM && r->a1 >= 0) {
					system_status(n, n->procs[i].pid,
						      n->procs[i].thr[j].tid, r);
					continue;
				}
				if (r->call == C_POPEN && r->err == 0) {
					if (!pcl_read) {
						pc = pcloses_of(&n->procs[i], &npc);
						pcl_read = true;
					}
					popen_child(n, n->procs[i].pid,
						    n->procs[i].thr[j].tid, r, pc, npc);
					continue;
				}
				if ((r->call != C_WAITPID && r->call != C_WAIT4 &&
				     r->call != C_WAITCALL && r->call != C_WAIT3 &&
				     r->call != C_WAITID) || r->ret <= 0)
					continue;
				if (!WIFEXITED(r->a1) && !WIFSIGNALED(r->a1))
					continue;
				struct proc *c = proc_when(n, (pid_t)r->ret,
							   clock_ns(&n->clk, r->t1), false);
				if (c && c->status < 0)
					c->status = (int)r->a1;
			}
		}
		free(pc);
	}
}

/* What no recorded wait reported: the status a process's exit or _exit
 * call gave (its parent's wait may be unseen: bash reaps its children in
 * its SIGCHLD handler, which runs inside the call it interrupts). */
static void statuses_from_exits(struct cap_node *n)
{
	for (int i = 0; i < n->nprocs; i++)
		for (int j = 0; n->procs[i].status < 0 && j < n->procs[i].nthr; j++)
			if (n->procs[i].thr[j].status)
				n->procs[i].status = (n->procs[i].thr[j].status - 1) << 8;
}

/* --- what the capture could not see ------------------------------------ */

static void add_reason(struct proc *p, const char *what)
{
	char *r = p->reason ? xasprintf("%s; %s", p->reason, what) : xstrdup(what);

	free(p->reason);
	p->reason = r;
	p->complete = 0;
}

/* A thread's records cut where one was not sane (spool_read.c's
 * warning): the calls after it in its chunk are not in the trace */
static void damaged_spools(struct proc *p)
{
	for (int j = 0; j < p->nthr; j++)
		for (int g = 0; g < p->thr[j].nsp; g++)
			if (p->thr[j].sp[g]->damaged) {
				char why[96];

				snprintf(why, sizeof(why), "thread %d's records damaged: "
					 "some of its calls are missing", (int)p->thr[j].tid);
				add_reason(p, why);
				break;
			}
}

/* A vfork child runs on its parent's memory until its exec or _exit:
 * the calls it makes (a2: the dup2s and closes before an exec, the exec,
 * an _exit) are not recorded (--syscalls makes it a fork, its own) */
static void vfork_gap(struct cap_node *n, struct proc *p, const struct rec *r)
{
	pid_t pid = r->ret > 0 ? (pid_t)r->ret : (pid_t)r->a1;
	struct proc *c = pid > 0 ? proc_when(n, pid, clock_ns(&n->clk, r->t0), true) : NULL;
	char buf[200];

	if (c && r->a2 > 0) {
		snprintf(buf, sizeof(buf), "%lld call%s before its exec, as a vfork child "
			 "on its parent's memory, not recorded", (long long)r->a2,
			 r->a2 > 1 ? "s" : "");
		add_reason(c, buf);
	} else if (!c && pid > 0 && r->a2 > 0) {
		snprintf(buf, sizeof(buf), "vfork child %d has no record (%lld call%s on "
			 "its parent's memory, not recorded)", (int)pid, (long long)r->a2,
			 r->a2 > 1 ? "s" : "");
		add_reason(p, buf);
	} else if (!c && pid > 0 && !n->unmapped_images) {
		/* (with images unmapped, the node says why) */
		snprintf(buf, sizeof(buf), "vfork child %d has no record (an image "
			 "without the interposer)", (int)pid);
		add_reason(p, buf);
	}
}

/* A posix_spawn's child, whose file actions (open, dup2, close before its
 * exec, by libc in the child) no wrapper sees: counted in its record */
static void spawn_gap(struct cap_node *n, const struct rec *r)
{
	struct proc *c = r->ret == 0 && r->a1 > 0 && r->a2 > 0 ?
			 proc_when(n, (pid_t)r->a1, clock_ns(&n->clk, r->t0), true) : NULL;
	char buf[160];

	if (!c)
		return;
	snprintf(buf, sizeof(buf), "%lld file action%s of its posix_spawn before its "
		 "exec, not recorded", (long long)r->a2, r->a2 > 1 ? "s" : "");
	add_reason(c, buf);
}

/*
 * A process is incomplete, with the reasons, when one of its threads lost
 * records, when a thread or child it created has no record of its own
 * (its spool could not be created: descriptors or memory exhausted, or an
 * image the interposer cannot enter), when it made a child that shares
 * its memory with raw clone(), or when it used io_uring, whose operations
 * the interposer does not see one by one, or made asynchronous
 * operations it could not itemise (REC_AIO_GAP); a vfork child, when it made
 * calls before its exec (vfork_gap), a posix_spawn child when it had file
 * actions (spawn_gap).
 */
/* Why asynchronous operations have no element (REC_AIO_GAP), after
 * "N asynchronous operation(s) " */
static const char *const aio_gap_why[AIO_GAP_N] = {
	[AIO_GAP_FULL] = "not itemised (submitted with more in flight than the "
			 "capture keeps, or where it could not see)",
	[AIO_GAP_UNREAPED] = "submitted with no completion seen (reaped from the "
			     "ring in user space, or still in flight at the end)",
	[AIO_GAP_URING_UNSEEN] = "completed on an io_uring with no submission seen "
				 "(io_uring_enter made without libc's syscall(): "
				 "--syscalls sees it)",
	[AIO_GAP_DESTROYED] = "with no completion seen when io_destroy ended their "
			      "context (reaped from its ring in user space, or "
			      "discarded in flight)",
};

/* io_uring's opcodes not itemised (they change the descriptor table,
 * name paths or sockets), by the names liburing gives them */
static const char *const uring_op_names[] = {
	[13] = "accept", [16] = "connect", [18] = "openat", [19] = "close",
	[20] = "files_update", [21] = "statx", [28] = "openat2",
	[29] = "epoll_ctl", [30] = "splice", [33] = "tee", [34] = "shutdown",
	[35] = "renameat", [36] = "unlinkat", [37] = "mkdirat", [38] = "symlinkat",
	[39] = "linkat", [40] = "msg_ring", [41] = "fsetxattr", [42] = "setxattr",
	[43] = "fgetxattr", [44] = "getxattr", [45] = "socket", [46] = "uring_cmd",
	[47] = "send_zc", [48] = "sendmsg_zc",
};
#define NURING_OPS (int)(sizeof(uring_op_names) / sizeof(uring_op_names[0]))
static int64_t uring_op_n[NURING_OPS + 1];

static void uring_op(struct proc *p, int64_t op, int64_t n)
{
	(void)p;
	uring_op_n[op >= 0 && op < NURING_OPS && uring_op_names[op] ? op : NURING_OPS] +=
		n > 0 ? n : 1;
}

/* "N io_uring operation(s) not itemised: openat (2), close (1)" */
static void uring_ops_reason(struct proc *p)
{
	char buf[512];
	int64_t all = 0;
	size_t k;

	for (int i = 0; i <= NURING_OPS; i++)
		all += uring_op_n[i];
	if (!all)
		return;
	k = (size_t)snprintf(buf, sizeof(buf), "%lld io_uring operation%s not itemised:",
			     (long long)all, all > 1 ? "s" : "");
	for (int i = 0; i <= NURING_OPS && k < sizeof(buf); i++)
		if (uring_op_n[i])
			k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s %s (%lld)",
					      k > 40 && buf[k - 1] == ')' ? "," : "",
					      i < NURING_OPS ? uring_op_names[i] : "other",
					      (long long)uring_op_n[i]);
	memset(uring_op_n, 0, sizeof(uring_op_n));
	add_reason(p, buf);
}

static void find_gaps(struct cap_node *n)
{
	char buf[160];

	for (int i = 0; i < n->nprocs; i++) {
		struct proc *p = &n->procs[i];
		int created = 0, started = 0, uring = 0, modules = 0, sqpoll = 0;
		int64_t aio_gaps[AIO_GAP_N] = { 0 };

		for (int j = 0; j < p->nthr; j++) {
			struct thr *t = &p->thr[j];
			struct rec_iter it;
			struct rec *r;

			if (t->creator && t->tid != p->pid)
				started++;
			if (t->lost) {
				snprintf(buf, sizeof(buf), "thread %d lost %llu records (spool full)",
					 (int)t->tid, (unsigned long long)t->lost);
				add_reason(p, buf);
			}
			if (t->nested) {
				snprintf(buf, sizeof(buf), "thread %d made %llu call%s inside calls being "
					 "recorded (a signal handler's, a callback's), not recorded",
					 (int)t->tid, (unsigned long long)t->nested,
					 t->nested > 1 ? "s" : "");
				add_reason(p, buf);
			}
			rec_iter_init(&it, t);
			while ((t->seen & SEEN_GAPS) && (r = rec_next(&it))) {
				pid_t child = 0;

				switch (r->call) {
				case REC_MODULE:
					modules = 1;
					break;
				case REC_SAMPLE:	/* the rate of <profile> */
					n->profile_ticks += r->fd == SAMPLE_TIMER;
					n->profile_cpu += r->a1 > 0 ? r->a1 : 0;
					break;
				case C_PTHREAD_CREATE:
					created += r->ret == 0;
					break;
				case C_FORK:
					child = r->ret > 0 ? (pid_t)r->ret : 0;
					break;
				case C_POSIX_SPAWN:
					child = r->ret == 0 && r->a1 > 0 ? (pid_t)r->a1 : 0;
					spawn_gap(n, r);
					break;
				case C_VFORK:
					vfork_gap(n, p, r);
					break;
				case C_CLONE:
					if (r->ret <= 0)
						break;
					if (r->a1) {
						child = (pid_t)r->ret;
						break;
					}
					snprintf(buf, sizeof(buf), "%s %d made by clone() shares "
						 "its memory: not captured", (r->a2 & CLONE_THREAD) ?
						 "thread" : "child", (int)r->ret);
					add_reason(p, buf);
					break;
				case REC_AIO_GAP:
					if (r->fd == AIO_GAP_URING)
						uring = 1;
					else if (r->fd == AIO_GAP_SQPOLL)
						sqpoll = 1;
					else if (r->fd == AIO_GAP_URING_OP)
						uring_op(p, r->a2, r->a1);
					else if (r->fd >= 0 && r->fd < AIO_GAP_N)
						aio_gaps[r->fd] += r->a1 > 0 ? r->a1 : 1;
					break;
				}
				if (child && !proc_when(n, child, clock_ns(&n->clk, r->t0), true)) {
					snprintf(buf, sizeof(buf), "child process %d has no record "
						 "(no spool: descriptors or memory exhausted, or an "
						 "image without the interposer)", (int)child);
					add_reason(p, buf);
				}
			}
		}
		/* an exec whose image never announced itself: the interposer
		 * was not loaded in it (a user dropped to cannot read it, a
		 * static or set-user-ID program) */
		for (int j = 0; j < p->nthr; j++)
			if (p->thr[j].exit == TEXIT_EXEC && p->thr[j].tid == p->pid)
				add_reason(p, "its exec ran an image without the interposer "
					   "(unreadable to the user it ran as, static, or "
					   "set-user-ID): that image's calls are not recorded");
		if (created > started) {
			snprintf(buf, sizeof(buf), "%d thread%s created with pthread_create "
				 "%s no record (no spool: descriptors or memory exhausted)",
				 created - started, created - started > 1 ? "s" : "",
				 created - started > 1 ? "have" : "has");
			add_reason(p, buf);
		}
		if (uring)
			add_reason(p, "io_uring operations are not itemised");
		if (sqpoll)
			add_reason(p, "io_uring operations submitted to a ring the kernel's "
				   "thread polls (SQPOLL) are not itemised: no system call "
				   "shows them");
		uring_ops_reason(p);
		for (int k = 0; k < AIO_GAP_N; k++)
			if (aio_gaps[k] && aio_gap_why[k]) {
				snprintf(buf, sizeof(buf), "%lld asynchronous operation%s %s",
					 (long long)aio_gaps[k], aio_gaps[k] > 1 ? "s" : "",
					 aio_gap_why[k]);
				add_reason(p, buf);
			}
		/* the profiler describes an image's modules when its first
		 * thread starts: an image without is one it never ran in */
		if (n->profile && !modules)
			p->unprofiled = "the profiler did not run in it (no modules "
					"described: a static program, run by island-loader, "
					"has no profiler)";
	}
}

/* Did the process end as planned? 1: it exited (its status says so);
 * 2: a server (--server) stopped by SIGTERM; 0: neither. */
static int planned_end(const struct cap_node *n, int status)
{
	if (status < 0)
		return 0;
	if (WIFEXITED(status))
		return 1;
	return n->server && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM ? 2 : 0;
}

/*
 * A process that ended as planned ended every thread it had, and what
 * they did up to there is recorded (a record is in the spool once the
 * call returns): a thread with no end of its own is complete. One that
 * an exit ended was ended by the exit, as those the interposer saw at
 * the exit were (one started just then, a jemalloc thread started by the
 * exit itself, had no time to be); one that a server's SIGTERM ended was
 * waiting for the next request.
 */
static void planned_ends(struct cap_node *n)
{
	for (int i = 0; i < n->nprocs; i++) {
		struct proc *p = &n->procs[i];
		int how = planned_end(n, p->status);
		if (!how)
			continue;
		p->complete = 1;
		for (int j = 0; j < p->nthr; j++) {
			struct thr *t = &p->thr[j];
			if (t->exit == TEXIT_NONE) {
				if (how == 1)
					t->exit = TEXIT_PROCESS;
				t->complete = 1;
			}
			p->complete &= t->complete;
		}
	}
}

/* What resolve_node made: the node's files and sockets. */
void resolve_free(struct cap_node *n)
{
	made_free(n);
	for (int i = 0; i < n->nobjs; i++) {
		free(n->objs[i].name);
		free(n->objs[i].local);
		free(n->objs[i].peer);
	}
	free(n->objs);
	n->objs = NULL;
	n->nobjs = 0;
}

/*
 * The capture's streaming (writer/stream.c): each process resolved as far
 * as resolve_proc at the end would take its records in the same order.
 * It takes the earliest of its threads' next records; here only while
 * that is earlier than any a thread could still add: one with no record
 * to come yet will write one no earlier than its last ended (or it
 * started, or than the call it is in began: in_t0), unless it has ended;
 * a thread a pthread_create made that is not seen yet, nothing earlier
 * than that call. (A call a signal handler makes inside another can
 * come before its record: then, as at the end, the order is the one the
 * records came in, the time of the outer call aside.)
 */
int thread_ended(const struct proc *p, const struct thr *t)
{
	int x = t->sp[t->nsp - 1]->h->exit;	/* read before its records */

	return x != TEXIT_NONE && !(x == TEXIT_EXEC && t->tid == p->pid);
}

/* Could the thread still add a record before those of others? Not once
 * it has ended, unless --syscalls holds some back (not linked yet). */
static bool may_add(const struct proc *p, const struct thr *t)
{
	return !thread_ended(p, t) || t->napplied < t->nseen;
}

/* a wait seen under way ended no earlier than its header was read, but
 * for the store of its end (in_wait 0) still unseen as its end's time
 * was read: a margin of some ms, in ticks or ns */
#define WAIT_MARGIN 20000000

static uint64_t next_at_least(const struct thr *t)
{
	const struct spool *last = t->sp[t->nsp - 1];

	/* a record written but not taken yet (its thread's last: it may
	 * still change) comes first, though the call under way began after */
	if (last->held)
		return last->held_t0;
	uint64_t at = t->any ? t->last_t1 : (uint64_t)t->sp[0]->h->start;
	uint64_t in = last->h->in_t0;	/* a call under way */

	/* in a wait or a sleep (and in no call a signal handler made in
	 * it): its record goes anywhere (it neither uses nor changes
	 * descriptors), what comes after it is later than when the thread
	 * was seen in it */
	if (last->h->in_wait && last->h->in_wait == in) {
		uint64_t seen = ((const struct hdr_copy *)last->h)->read_at;
		if (seen > WAIT_MARGIN && seen - WAIT_MARGIN > in)
			in = seen - WAIT_MARGIN;
	}
	return in > at ? in : at;
}

static void made_rebuild(struct proc *p)
{
	imap_free(&p->made);
	for (int k = 0; k < p->nthr; k++)
		if (p->thr[k].sp[0]->h->made_at)
			imap_put(&p->made, (uint64_t)p->thr[k].sp[0]->h->made_at, k);
}

/* The thread whose header names the call, by the map spool_add keeps
 * (made again once the threads were sorted) */
static int made_index(struct proc *p, uint64_t t0)
{
	int j = imap_get(&p->made, t0);

	if (j >= p->nthr || (j >= 0 && (uint64_t)p->thr[j].sp[0]->h->made_at != t0)) {
		made_rebuild(p);
		j = imap_get(&p->made, t0);
	}
	return j;
}

/* The indexes the writer looks threads and processes up in, made whole
 * now: the end's parts are written by several threads at once, which
 * then only read them (made_index, by_maker) */
void resolve_index_ready(struct cap_node *n)
{
	by_maker(n);
	for (int i = 0; i < n->nprocs; i++)
		made_rebuild(&n->procs[i]);
}

struct thr *thread_made(struct proc *p, pid_t creator, const struct rec *r)
{
	int j = made_index(p, r->t0);

	return j >= 0 && p->thr[j].sp[0]->h->creator == creator ? &p->thr[j] : NULL;
}

/* A pthread_create of thread i at t0: the thread it made, already seen?
 * The one its header names, else (a header that does not say) the
 * earliest that started after it */
static int claim(struct proc *p, struct pstream *ps, int i, uint64_t t0)
{
	int best = made_index(p, t0);

	if (best >= ps->nc || (best >= 0 && (ps->claimed[best] ||
			       p->thr[best].sp[0]->h->creator != p->thr[i].tid)))
		best = -1;
	/* else the earliest to start after it of those whose header does
	 * not say (a thread killed before it could), if any */
	bool named = best >= 0;
	for (int j = 0; !named && ps->nomade && j < ps->nc; j++) {
		const struct spool_hdr *h = p->thr[j].sp[0]->h;
		if (ps->claimed[j] || h->creator != p->thr[i].tid || h->made_at)
			continue;
		if ((uint64_t)h->start >= t0 &&
		    (best < 0 || h->start < p->thr[best].sp[0]->h->start))
			best = j;
	}
	if (best >= 0)
		ps->claimed[best] = 1;
	return best >= 0;
}

/* The thread's next record, if there is one it may take (--syscalls:
 * linked to its level for good) */
static bool cur_more(const struct resolver *rs, struct cursor *c, const struct thr *t)
{
	if (rs->n->syscalls && t->napplied >= t->nlinked)
		return false;
	return cur_next(c) != NULL;
}

static void stream_proc(struct resolver *rs, struct proc *p, struct pstream *ps)
{
	/* the threads seen since: a made one answers its pthread_create;
	 * one nothing made that starts before what was applied (a thread
	 * libc made itself) may have come earlier: no further */
	for (; ps->nc < p->nthr; ps->nc++) {
		struct thr *t = &p->thr[ps->nc];
		const struct spool_hdr *h = t->sp[0]->h;
		size_t k;

		XGROW(ps->c, ps->capc, (size_t)ps->nc + 1);
		XGROW(ps->claimed, ps->capcl, (size_t)ps->nc + 1);
		memset(&ps->c[ps->nc], 0, sizeof(ps->c[0]));
		rec_iter_init(&ps->c[ps->nc].it, t);
		ps->nomade += !h->made_at;
		/* the call its header names; else the latest that can have
		 * made it: the earlier ones stay, and bound what their
		 * threads may add */
		k = ps->nmade;
		for (size_t j = 0; j < ps->nmade; j++)
			if (ps->made[j].creator == h->creator &&
			    (h->made_at ? (uint64_t)h->made_at == ps->made[j].t0 :
			     (uint64_t)h->start >= ps->made[j].t0 &&
			     (k == ps->nmade || ps->made[j].t0 > ps->made[k].t0)))
				k = j;
		ps->claimed[ps->nc] = k < ps->nmade;
		if (k < ps->nmade)
			ps->made[k] = ps->made[--ps->nmade];
		else if (ps->nc && (uint64_t)h->start < ps->last)
			ps->paused = 1;	/* its pthread_create, if any, is to come */
	}
	if (ps->paused)
		return;
	uint64_t w = UINT64_MAX;
	int *heap = xmalloc(sizeof(int) * (size_t)(ps->nc + 1)), nh = 0;
	for (size_t k = 0; k < ps->nmade; k++)
		w = ps->made[k].t0 < w ? ps->made[k].t0 : w;
	for (int i = 0; i < ps->nc; i++) {
		struct cursor *c = &ps->c[i];
		c->it.t = &p->thr[i];	/* the arrays may have moved */
		if (c->cur || cur_more(rs, c, &p->thr[i]))
			heap[nh++] = i;
		else if (may_add(p, &p->thr[i]) && next_at_least(&p->thr[i]) < w)
			w = next_at_least(&p->thr[i]);
	}
#define KEY(j) (ps->c[heap[j]].key)
	/* a binary heap of thread indexes by their next record's key */
	for (int j = 1; j < nh; j++)
		for (int x = j; x && KEY(x) < KEY((x - 1) / 2); x = (x - 1) / 2) {
			int tmp = heap[x];
			heap[x] = heap[(x - 1) / 2];
			heap[(x - 1) / 2] = tmp;
		}
	while (nh && KEY(0) < w) {
		int i = heap[0];
		struct cursor *c = &ps->c[i];
		struct rec *r = c->cur;

		apply(rs, p, &ps->f, r);
		p->thr[i].napplied++;
		ps->last = c->key > ps->last ? c->key : ps->last;
		if (r->call == C_PTHREAD_CREATE && r->ret == 0 && !claim(p, ps, i, r->t0)) {
			XGROW(ps->made, ps->capmade, ps->nmade + 1);
			ps->made[ps->nmade].creator = p->thr[i].tid;
			ps->made[ps->nmade++].t0 = r->t0;
			w = r->t0 < w ? r->t0 : w;
		}
		c->cur = NULL;
		if (!cur_more(rs, c, &p->thr[i])) {
			heap[0] = heap[--nh];
			if (may_add(p, &p->thr[i]) && next_at_least(&p->thr[i]) < w)
				w = next_at_least(&p->thr[i]);
		}
		for (int x = 0;;) {
			int l = 2 * x + 1, m = x;
			if (l < nh && KEY(l) < KEY(m))
				m = l;
			if (l + 1 < nh && KEY(l + 1) < KEY(m))
				m = l + 1;
			if (m == x)
				break;
			int tmp = heap[x];
			heap[x] = heap[m];
			heap[m] = tmp;
			x = m;
		}
	}
#undef KEY
	free(heap);
}

int resolve_stream_at(const struct proc *p, int i)
{
	return p->ps && i < p->ps->nc ? p->ps->c[i].it.g : -1;
}

void resolve_stream(struct cap_node *n)
{
	link_stream(n);
	if (!n->rsv) {
		n->rsv = xcalloc(1, sizeof(*n->rsv));
		n->rsv->n = n;
	}
	for (int i = 0; i < n->nprocs; i++) {
		struct proc *p = &n->procs[i];

		if (!p->ps)
			p->ps = xcalloc(1, sizeof(*p->ps));
		if (!p->ps->paused)
			stream_proc(n->rsv, p, p->ps);
	}
}

void resolve_node(struct cap_node *n)
{
	struct resolver local = { .n = n }, *rsv = n->rsv ? n->rsv : &local;

	link_levels(n);
	n->complete = 1;
	for (int i = 0; i < n->nprocs; i++) {
		resolve_proc(rsv, &n->procs[i]);
		derive_proc(n, &n->procs[i]);
	}
	index_procs(n);
	for (int i = 0; i < n->nobjs; i++) {
		struct obj *b = &n->objs[i];
		const struct proc *q = proc_when(n, b->made_pid, clock_ns(&n->clk, b->made_t), false);
		b->made_start = q ? q->start : 0;
	}
	statuses_from_reaps(n);
	statuses_from_waits(n);
	statuses_from_exits(n);
	planned_ends(n);
	find_gaps(n);
	for (int i = 0; i < n->nprocs; i++) {
		struct proc *p = &n->procs[i];
		damaged_spools(p);
		if (p->status >= 0 && WIFSIGNALED(p->status) && !planned_end(n, p->status))
			p->complete = 0;
		if (!p->complete)
			n->complete = 0;
	}
	if (n->lost_threads)        /* threads with no record at all */
		n->complete = 0;
	if (n->unmapped_images) {   /* processes with none */
		n->complete = 0;
		n->reason = "address-space";
	}
	free(n->byp);		/* (by the procs' places, which the sort moves) */
	n->byp = NULL;
	n->nbyp = 0;
	made_free(n);
	if (n->nprocs > 1)	/* qsort(NULL, 0) is undefined (fuzz: spool) */
		qsort(n->procs, (size_t)n->nprocs, sizeof(*n->procs), cmp_proc);
	free(rsv->pmap);
	free(rsv->imap);
	if (n->rsv) {
		free(n->rsv);
		n->rsv = NULL;
	}
}
