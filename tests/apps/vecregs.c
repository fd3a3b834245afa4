/*
 * vecregs N: N raw `syscall`s (getppid) from one site, each with known
 * values in the vector registers, the x87 stack and MXCSR, which a system
 * call keeps: prints what it found kept. Under --syscalls the first call
 * traps and the site is rewritten; the rest take the capture's fast path
 * (sud.c, sudstub.S), which must keep them too. Twice per call: with
 * the ymm upper halves in use, and with them clean (after vzeroupper),
 * which must come back clean (XINUSE, where xgetbv 1 tells it); with
 * AVX-512, zmm0-31 and k1-7 too (glibc's string functions use zmm16-31
 * there: the capture's code may too).
 * The last line says whether the site was rewritten.
 */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

static int has_avx, has_xinuse, has_avx512;

static void features(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
		return;
	unsigned lo, hi;
	__asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	has_avx = (lo & 6) == 6;
	__cpuid_count(0xd, 1, a, b, c, d);
	has_xinuse = has_avx && (a & (1u << 2));
	__cpuid_count(7, 0, a, b, c, d);
	has_avx512 = has_avx && (lo & 0xe0) == 0xe0 && (b & bit_AVX512F);
}

/* the one site: every call below goes through this `syscall` (a
 * function: the red zone below the caller's stack is kept clear of the
 * call's return address) */
extern const unsigned char vr_site[];
#define CALL_SITE \
	"lea -128(%%rsp), %%rsp\n\tcall vr_syscall\n\tlea 128(%%rsp), %%rsp\n\t"

/* INSN for each vector register K, 0 to 15 (gas repeats it, \\k standing for K) */
#define EACH_REG(insn) \
	".irp k, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15\n\t" insn "\n\t.endr\n\t"

#define VEC_CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", \
	"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

/* ymm0-15 to out, then the upper state clean again */
#define STORE_YMM EACH_REG("vmovdqu %%ymm\\k, \\k*32(%[out])") "vzeroupper"

/* ymm0-15 from in, the call, ymm0-15 to out; x87 and MXCSR too */
static long call_dirty(const uint8_t in[16][32], uint8_t out[16][32], double *x87,
		       unsigned *mxcsr)
{
	long r;

	__asm__ volatile(
		EACH_REG("vmovdqu \\k*32(%[in]), %%ymm\\k")
		"fldl 0(%[x])\n\t"
		"ldmxcsr 0(%[m])\n\t"
		"mov %[nr], %%eax\n\t"
		CALL_SITE
		"stmxcsr 4(%[m])\n\t"
		"fstpl 8(%[x])\n\t"
		STORE_YMM
		: "=&a"(r)
		: [in] "r"(in), [out] "r"(out), [x] "r"(x87), [m] "r"(mxcsr),
		  [nr] "i"(SYS_getppid)
		: "rcx", "r11", "memory", VEC_CLOBBERS);
	return r;
}

/* the upper halves clean, xmm0-15 from in (legacy SSE moves); after the
 * call XINUSE (edx:eax of xgetbv 1, when told) and ymm0-15 to out */
static long call_clean(const uint8_t in[16][16], uint8_t out[16][32], unsigned *xinuse)
{
	long r;

	__asm__ volatile(
		"vzeroupper\n\t"
		EACH_REG("movdqu \\k*16(%[in]), %%xmm\\k")
		"mov %[nr], %%eax\n\t"
		CALL_SITE
		"mov %%rax, %%r8\n\t"
		"xor %%eax, %%eax\n\t"
		"cmpl $0, %[xi]\n\t"
		"je 1f\n\t"
		"mov $1, %%ecx\n\t"
		"xgetbv\n"
		"1:\tmov %%eax, 0(%[xu])\n\t"
		"mov %%r8, %%rax\n\t"
		STORE_YMM
		: "=&a"(r)
		: [in] "r"(in), [out] "r"(out), [xu] "r"(xinuse), [xi] "m"(has_xinuse),
		  [nr] "i"(SYS_getppid)
		: "rcx", "rdx", "r8", "r11", "memory", VEC_CLOBBERS);
	return r;
}

#define EACH_REG32(insn) \
	".irp k, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, " \
	"21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31\n\t" insn "\n\t.endr\n\t"
#define EACH_K(insn) ".irp k, 1, 2, 3, 4, 5, 6, 7\n\t" insn "\n\t.endr\n\t"

/* zmm0-31 and k1-7 from in, the call, to out; the upper state clean
 * again after */
__attribute__((target("avx512f")))
static long call_zmm(const uint8_t in[32][64], uint8_t out[32][64], const uint16_t kin[8],
		     uint16_t kout[8])
{
	long r;

	__asm__ volatile(
		EACH_REG32("vmovdqu64 \\k*64(%[in]), %%zmm\\k")
		EACH_K("kmovw \\k*2(%[ki]), %%k\\k")
		"mov %[nr], %%eax\n\t"
		CALL_SITE
		EACH_REG32("vmovdqu64 %%zmm\\k, \\k*64(%[out])")
		EACH_K("kmovw %%k\\k, \\k*2(%[ko])")
		"vzeroupper"
		: "=&a"(r)
		: [in] "r"(in), [out] "r"(out), [ki] "r"(kin), [ko] "r"(kout),
		  [nr] "i"(SYS_getppid)
		: "rcx", "r11", "memory", VEC_CLOBBERS, "xmm16", "xmm17", "xmm18", "xmm19",
		  "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27",
		  "xmm28", "xmm29", "xmm30", "xmm31", "k1", "k2", "k3", "k4", "k5", "k6", "k7");
	return r;
}

/* the site itself: a function, so that both callers share it */
__asm__(".text\n"
	".p2align 4\n"
	"vr_syscall:\n"
	"vr_site:\n\t"
	"syscall\n\t"
	"ret\n");

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	uint8_t in[16][32], out[16][32], in16[16][16];
	long bad_dirty = 0, bad_clean = 0, bad_x87 = 0, bad_mxcsr = 0, dirty_left = 0;
	long bad_zmm = 0;
	static uint8_t zin[32][64], zout[32][64];
	uint16_t kin[8], kout[8];
	long ppid = 0;

	features();
	if (!has_avx) {
		printf("no AVX here\n");
		return 0;
	}
	for (long k = 0; k < n; k++) {
		for (int i = 0; i < 16; i++)
			for (int j = 0; j < 32; j++)
				in[i][j] = (uint8_t)(k * 7 + i * 32 + j + 1);
		double x87[2] = { 1.0 + (double)k / 3.0, 0 };
		unsigned m0, mx[2];
		__asm__ volatile("stmxcsr %0" : "=m"(m0));
		mx[0] = (m0 & ~0x6000u) | 0x6000u;	/* round toward zero */
		mx[1] = 0;
		ppid = call_dirty(in, out, x87, mx);
		__asm__ volatile("ldmxcsr %0" : : "m"(m0));
		bad_dirty += memcmp(in, out, sizeof(in)) != 0;
		bad_x87 += memcmp(&x87[0], &x87[1], sizeof(double)) != 0;
		bad_mxcsr += mx[0] != mx[1];

		static const uint8_t zero[16];
		unsigned xu = 0;
		for (int i = 0; i < 16; i++)
			for (int j = 0; j < 16; j++)
				in16[i][j] = (uint8_t)(k * 5 + i * 16 + j + 3);
		call_clean(in16, out, &xu);
		for (int i = 0; i < 16; i++)
			bad_clean += memcmp(out[i], in16[i], 16) || memcmp(out[i] + 16, zero, 16);
		dirty_left += (xu & 4) != 0;
		if (!has_avx512)
			continue;
		for (int i = 0; i < 32; i++)
			for (int j = 0; j < 64; j++)
				zin[i][j] = (uint8_t)(k * 3 + i * 64 + j + 5);
		for (int i = 0; i < 8; i++)
			kin[i] = kout[i] = (uint16_t)(k * 11 + i * 0x1111 + 1);
		call_zmm(zin, zout, kin, kout);
		bad_zmm += memcmp(zin, zout, sizeof(zin)) || memcmp(kin, kout, sizeof(kin));
	}
	printf("%ld calls, ppid %s\n", n, ppid > 0 ? "ok" : "wrong");
	printf("ymm0-15 in use: %ld changed\n", bad_dirty);
	printf("xmm0-15, upper halves clean: %ld changed\n", bad_clean);
	printf("x87: %ld changed, MXCSR: %ld changed\n", bad_x87, bad_mxcsr);
	if (has_xinuse)
		printf("upper halves left in use after a clean call: %ld\n", dirty_left);
	if (has_avx512)
		printf("zmm0-31, k1-7 (AVX-512): %ld changed\n", bad_zmm);
	printf("site: %s\n", vr_site[0] == 0x0f && vr_site[1] == 0x05 ? "syscall" :
	       vr_site[0] == 0xff && vr_site[1] == 0xd0 ? "rewritten" : "other");
	return 0;
}
