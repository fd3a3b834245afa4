/* Unit tests of the words people type (common/suggest.c, common/size.c):
 * the nearest known word for a typo, none for a word far from all, and
 * sizes with their binary multiples. */
#include "unit.h"

#include "util.h"

static const char *const reports[] = {
	"summary", "top", "calls", "access", "sums", "timeline", "consumption",
	"files", "sockets", "ttx", "utilization", "regions", "compare", "export",
};
#define NR (sizeof(reports) / sizeof(reports[0]))

static void test_suggest(void)
{
	static const char *const attrs[] = { "name", "cwd", "role", "netns", "address" };

	CU_ASSERT_STRING_EQUAL(suggest("timline", reports, NR), "timeline");
	CU_ASSERT_STRING_EQUAL(suggest("sum", reports, NR), "sums");	/* one edit before a prefix */
	CU_ASSERT_STRING_EQUAL(suggest("summry", reports, NR), "summary");
	CU_ASSERT_STRING_EQUAL(suggest("clals", reports, NR), "calls");	/* a swap is one edit */
	CU_ASSERT_STRING_EQUAL(suggest("tp", reports, NR), "top");
	CU_ASSERT_STRING_EQUAL(suggest("rol", attrs, 5), "role");
	CU_ASSERT_STRING_EQUAL(suggest("adress", attrs, 5), "address");
	CU_ASSERT_PTR_NULL(suggest("colour", attrs, 5));
	CU_ASSERT_PTR_NULL(suggest("xyz", reports, NR));
	CU_ASSERT_PTR_NULL(suggest("", reports, NR));
}

static void test_size(void)
{
	double v = -1;

	CU_ASSERT_EQUAL(parse_size("100000", &v), 0);
	CU_ASSERT_EQUAL(v, 100000);
	CU_ASSERT_EQUAL(parse_size("64k", &v), 0);
	CU_ASSERT_EQUAL(v, 65536);
	CU_ASSERT_EQUAL(parse_size("64K", &v), 0);
	CU_ASSERT_EQUAL(v, 65536);
	CU_ASSERT_EQUAL(parse_size("10M", &v), 0);
	CU_ASSERT_EQUAL(v, 10485760);
	CU_ASSERT_EQUAL(parse_size("1G", &v), 0);
	CU_ASSERT_EQUAL(v, 1073741824);
	CU_ASSERT_EQUAL(parse_size("1.5KiB", &v), 0);
	CU_ASSERT_EQUAL(v, 1536);
	CU_ASSERT_EQUAL(parse_size("2MB", &v), 0);
	CU_ASSERT_EQUAL(v, 2097152);
	CU_ASSERT_EQUAL(parse_size("1e3", &v), 0);
	CU_ASSERT_EQUAL(v, 1000);
	v = -1;
	CU_ASSERT_EQUAL(parse_size("10X", &v), -1);
	CU_ASSERT_EQUAL(parse_size("10kk", &v), -1);
	CU_ASSERT_EQUAL(parse_size("k", &v), -1);
	CU_ASSERT_EQUAL(parse_size("", &v), -1);
	CU_ASSERT_EQUAL(parse_size("1Mi B", &v), -1);
	CU_ASSERT_EQUAL(v, -1);		/* untouched on error */
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "did you mean", test_suggest },
		{ "sizes with multiples", test_size },
	};

	return unit_main("analyze-words", tests, sizeof(tests) / sizeof(tests[0]));
}
