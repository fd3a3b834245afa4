/*
 * island-loader: the way into a statically linked program, which has no
 * dynamic loader and so no LD_PRELOAD. island-capture --syscalls runs
 * this static-pie instead of the program (ISLAND_LOADER_TARGET names it,
 * argv is the program's own). It maps the program's segments, opens the
 * spool and arms Syscall User Dispatch (the interposer's core, sud.c,
 * built in with its thread state behind %gs), builds the program's
 * initial stack (its argv, its environment without ISLAND_LOADER_TARGET,
 * the kernel's auxv with the program's headers and entry) and jumps to
 * its entry point. From there on, the program's libc (or Go runtime) owns
 * %fs and runs as if the kernel had started it; every system call it
 * makes is recorded by the handler.
 */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../preload/preload.h"

#define TARGET_ENV "ISLAND_LOADER_TARGET"
#define PAGE 4096ul
#define DOWN(x) ((x) & ~(PAGE - 1))
#define UP(x) (((x) + PAGE - 1) & ~(PAGE - 1))

static void fail(const char *path, const char *what)
{
	fprintf(stderr, "island-loader: %s: %s\n", path, what);
	exit(127);
}

static int prot_of(uint32_t f)
{
	return (f & PF_R ? PROT_READ : 0) | (f & PF_W ? PROT_WRITE : 0) |
	       (f & PF_X ? PROT_EXEC : 0);
}

/* Map the program's PT_LOAD segments; returns the load bias. */
static uintptr_t map_program(const char *path, int fd, const Elf64_Ehdr *eh,
			     const Elf64_Phdr *ph)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0, bias = 0;

	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (DOWN(ph[i].p_vaddr) < lo)
			lo = DOWN(ph[i].p_vaddr);
		if (ph[i].p_vaddr + ph[i].p_memsz > hi)
			hi = ph[i].p_vaddr + ph[i].p_memsz;
	}
	if (hi <= lo)
		fail(path, "no loadable segment");
	/* reserve the whole span, so that nothing else lands in its gaps */
	void *at = mmap(eh->e_type == ET_EXEC ? (void *)lo : NULL, UP(hi) - lo,
			PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
			(eh->e_type == ET_EXEC ? MAP_FIXED_NOREPLACE : 0), -1, 0);
	if (at == MAP_FAILED || (eh->e_type == ET_EXEC && (uintptr_t)at != lo))
		fail(path, "cannot reserve its address range");
	if (eh->e_type == ET_DYN)
		bias = (uintptr_t)at - lo;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *p = &ph[i];
		if (p->p_type != PT_LOAD)
			continue;
		uintptr_t start = bias + DOWN(p->p_vaddr);
		uintptr_t fend = bias + p->p_vaddr + p->p_filesz;
		uintptr_t mend = bias + p->p_vaddr + p->p_memsz;
		int prot = prot_of(p->p_flags);
		if (p->p_filesz &&
		    mmap((void *)start, UP(fend) - start, prot | PROT_WRITE,
			 MAP_PRIVATE | MAP_FIXED, fd, (off_t)DOWN(p->p_offset)) == MAP_FAILED)
			fail(path, "cannot map a segment");
		if (mend > fend) {
			/* bss: the rest of the last file page, then fresh pages */
			if (p->p_filesz && UP(fend) > fend)
				memset((void *)fend, 0, UP(fend) - fend);
			uintptr_t z = p->p_filesz ? UP(fend) : start;
			if (UP(mend) > z &&
			    mmap((void *)z, UP(mend) - z, prot | PROT_WRITE,
				 MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
				fail(path, "cannot map its bss");
		}
		if (mprotect((void *)start, UP(mend) - start, prot) < 0)
			fail(path, "cannot protect a segment");
	}
	return bias;
}

/* The address of the program headers in the mapped image. */
static uintptr_t phdr_addr(const Elf64_Ehdr *eh, const Elf64_Phdr *ph,
			   uintptr_t bias)
{
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_PHDR)
			return bias + ph[i].p_vaddr;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && eh->e_phoff >= ph[i].p_offset &&
		    eh->e_phoff < ph[i].p_offset + ph[i].p_filesz)
			return bias + ph[i].p_vaddr + (eh->e_phoff - ph[i].p_offset);
	return 0;
}

/* Our libc registered this thread's rseq area; the program's libc must
 * find none, or its registration fails (EINVAL) and it runs without
 * (sched_getcpu's fast path, per-CPU caches). glibc registers 32 bytes
 * at least. */
static void rseq_off(void)
{
	void *area = (char *)__builtin_thread_pointer() + __rseq_offset;

	if (!__rseq_size)
		return;
	if (syscall(SYS_rseq, area, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG) < 0)
		syscall(SYS_rseq, area, __rseq_size, RSEQ_FLAG_UNREGISTER, RSEQ_SIG);
}

/* Open an x86-64 ELF program and read its headers. */
static int open_elf(const char *path, Elf64_Ehdr *eh, Elf64_Phdr *ph)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fail(path, "cannot open");
	if (pread(fd, eh, sizeof(*eh), 0) != (ssize_t)sizeof(*eh) ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_machine != EM_X86_64 || (eh->e_type != ET_EXEC && eh->e_type != ET_DYN))
		fail(path, "not an x86-64 ELF program");
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum > 64 ||
	    pread(fd, ph, eh->e_phnum * sizeof(Elf64_Phdr), (off_t)eh->e_phoff) !=
		    (ssize_t)(eh->e_phnum * sizeof(Elf64_Phdr)))
		fail(path, "bad program headers");
	return fd;
}

int main(int argc, char **argv, char **envp)
{
	const char *target = getenv(TARGET_ENV);
	static char path[PATH_MAX], interp[PATH_MAX];
	Elf64_Ehdr eh, ih;
	Elf64_Phdr ph[64], iph[64];
	uintptr_t ibias = 0, ientry = 0;

	if (!target || !realpath(target, path)) {
		fprintf(stderr, "island-loader: %s: %s\n", target ? target : TARGET_ENV,
			target ? "no such program" : "not set (island-capture --syscalls runs me)");
		return 127;
	}
	int fd = open_elf(path, &eh, ph);
	for (int i = 0; i < eh.e_phnum; i++) {
		/* a dynamic program: its interpreter (ld.so) is loaded too and
		 * starts first, as the kernel would do, so that its own calls
		 * are recorded; the interposer takes over from its constructor */
		if (ph[i].p_type != PT_INTERP)
			continue;
		if (ph[i].p_filesz == 0 || ph[i].p_filesz >= sizeof(interp) ||
		    pread(fd, interp, ph[i].p_filesz, (off_t)ph[i].p_offset) !=
			    (ssize_t)ph[i].p_filesz)
			fail(path, "bad interpreter name");
		interp[ph[i].p_filesz - 1] = 0;
		int ifd = open_elf(interp, &ih, iph);
		if (ih.e_type != ET_DYN)
			fail(interp, "an interpreter that is not position-independent");
		ibias = map_program(interp, ifd, &ih, iph);
		ientry = ibias + ih.e_entry;
		close(ifd);
	}
	uintptr_t bias = map_program(path, fd, &eh, ph);
	close(fd);
	island_exe = path;
	/* the kernel named this task after us: the program's name, as its
	 * exec would have given it (the base of the path it was run by, a
	 * script's own); that path is its AT_EXECFN */
	static char execfn[PATH_MAX];   /* kept: the variables are wiped below */
	const char *script = getenv(ENV_LOADER_NAME);
	snprintf(execfn, sizeof(execfn), "%s", script ? script : target);
	const char *base = strrchr(execfn, '/');
	/* by descriptor alone (fexecve: /dev/fd/N), after its file, as
	 * Linux 6.x names it */
	if (!strncmp(execfn, "/dev/fd/", 8) && strspn(execfn + 8, "0123456789") == strlen(execfn + 8))
		base = strrchr(path, '/');
	prctl(PR_SET_NAME, (unsigned long)(base ? base + 1 : execfn), 0, 0, 0);
	rseq_off();
	if (!island_new_state())
		fail(path, "cannot map the capture's thread state");
	/* the clock is chosen by island_init: read it after */
	island_init();
	uint64_t t0 = now();
	if (sud_on)
		sud_note_exec(path, t0);
	/* from here on every system call outside sudstub.S is dispatched:
	 * building the stack makes none */

	/* the program's stack: argc, argv, envp (without ours), auxv */
	char **e = envp;
	int nenv = 0;
	while (*e)
		e++;
	Elf64_auxv_t *aux = (Elf64_auxv_t *)(e + 1);
	int naux = 0;
	while (aux[naux].a_type != AT_NULL)
		naux++;
	for (e = envp; *e; e++)
		nenv++;
	size_t words = 1 + (size_t)argc + 1 + (size_t)nenv + 2 + 2 * ((size_t)naux + 1);
	uintptr_t top = (uintptr_t)__builtin_frame_address(0) - 65536;
	uint64_t *sp = (uint64_t *)((top - words * 8) & ~15ul), *w = sp;
	*w++ = (uint64_t)argc;
	for (int i = 0; i < argc; i++)
		*w++ = (uint64_t)argv[i];
	*w++ = 0;
	for (e = envp; *e; e++)
		if (strncmp(*e, TARGET_ENV "=", sizeof(TARGET_ENV)) &&
		    strncmp(*e, ENV_LOADER_NAME "=", sizeof(ENV_LOADER_NAME)))
			*w++ = (uint64_t)*e;
		else                    /* /proc/PID/environ: not ours to show */
			memset(*e, 0, strlen(*e));
	/* the interposer takes over from us (sud.c), when we have dispatch */
	/* writable, like the kernel's; the program's file, for its
	 * interposer (its AT_EXECFN is the path it was exec'd by) */
	static char loaded[sizeof(ENV_LOADED) + PATH_MAX];
	snprintf(loaded, sizeof(loaded), "%s=%s", ENV_LOADED, path);
	if (ientry && sud_on)
		*w++ = (uint64_t)loaded;
	*w++ = 0;
	uintptr_t entry = bias + eh.e_entry;
	for (int i = 0; i < naux; i++) {
		uint64_t v = aux[i].a_un.a_val;
		switch (aux[i].a_type) {
		case AT_PHDR:   v = phdr_addr(&eh, ph, bias); break;
		case AT_PHENT:  v = sizeof(Elf64_Phdr); break;
		case AT_PHNUM:  v = eh.e_phnum; break;
		case AT_ENTRY:  v = entry; break;
		case AT_BASE:   v = ibias; break;
		case AT_EXECFN: v = (uint64_t)execfn; break;
		}
		*w++ = aux[i].a_type;
		*w++ = v;
	}
	*w++ = AT_NULL;
	*w++ = 0;

	__asm__ volatile("mov %0, %%rsp\n\txor %%edx, %%edx\n\tjmp *%1"
			 :: "a"(sp), "c"(ientry ? ientry : entry) : "memory");
	__builtin_unreachable();
}
