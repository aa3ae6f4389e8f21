// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kernel_ident_mapping_init() and kernel_ident_mapping_free().
 *
 * Resume from hibernation builds its temporary page tables with
 * kernel_ident_mapping_init() at an offset of __PAGE_OFFSET, which
 * CONFIG_RANDOMIZE_MEMORY only aligns to 1 GiB.  The tests build tables in
 * pages from a counting test allocator and check them with a software walk;
 * the tables are never loaded into CR3.
 */

#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/sizes.h>
#include <asm/init.h>

#define TEST_MAX_PAGES	64

/*
 * A test PGD is the first of two pages, the second poisoned: with page table
 * isolation, setting a top-level entry in the user half without
 * _PAGE_NOPTISHADOW also writes it to the user copy of the table, at the
 * PGD's address with bit 12 set (kernel_to_user_pgdp()), which for an
 * order-1 block is its second page.  The PGDs of the identity maps are
 * single pages.  The second page is checked when the PGD is freed.
 */
#define TEST_PGD_ORDER	1
#define TEST_POISON	0xa5

/* Test allocator: zeroed pages, counted, failing on request. */
struct test_alloc {
	void *pages[TEST_MAX_PAGES];
	bool live[TEST_MAX_PAGES];
	bool is_pgd[TEST_MAX_PAGES];
	int nr_alloc;		/* successful allocations */
	int nr_calls;		/* calls of alloc_pgt_page() */
	int fail_at;		/* call that returns NULL, 0 for none */
	int nr_bad_free;	/* frees of pages not handed out, or twice */
	int nr_user_copies;	/* freed PGDs whose second page was written */
	int copied_index;	/* the first written entry of the last such */
};

static void *test_alloc_table(struct test_alloc *ta, bool pgd)
{
	void *page;

	ta->nr_calls++;
	if (ta->fail_at == ta->nr_calls || ta->nr_alloc == TEST_MAX_PAGES)
		return NULL;

	page = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
					pgd ? TEST_PGD_ORDER : 0);
	if (!page)
		return NULL;
	if (pgd)
		memset(page + PAGE_SIZE, TEST_POISON, PAGE_SIZE);
	ta->pages[ta->nr_alloc] = page;
	ta->live[ta->nr_alloc] = true;
	ta->is_pgd[ta->nr_alloc] = pgd;
	ta->nr_alloc++;
	return page;
}

static void *test_alloc_page(void *context)
{
	return test_alloc_table(context, false);
}

static pgd_t *test_alloc_pgd(struct test_alloc *ta)
{
	return test_alloc_table(ta, true);
}

static void test_release(struct test_alloc *ta, int i)
{
	void *written;

	ta->live[i] = false;
	if (!ta->is_pgd[i]) {
		free_page((unsigned long)ta->pages[i]);
		return;
	}
	written = memchr_inv(ta->pages[i] + PAGE_SIZE, TEST_POISON, PAGE_SIZE);
	if (written) {
		ta->nr_user_copies++;
		ta->copied_index = (written - ta->pages[i] - PAGE_SIZE) /
				   sizeof(pgd_t);
	}
	free_pages((unsigned long)ta->pages[i], TEST_PGD_ORDER);
}

static void test_free_page(void *page, void *context)
{
	struct test_alloc *ta = context;
	int i;

	for (i = 0; i < ta->nr_alloc; i++) {
		if (ta->pages[i] == page && ta->live[i]) {
			test_release(ta, i);
			return;
		}
	}
	ta->nr_bad_free++;
}

/* Whether @pa is a page this allocator handed out and has not freed. */
static bool test_is_live_page(const struct test_alloc *ta, unsigned long pa)
{
	int i;

	for (i = 0; i < ta->nr_alloc; i++)
		if (ta->live[i] && __pa(ta->pages[i]) == pa)
			return true;
	return false;
}

static int test_nr_live(const struct test_alloc *ta)
{
	int i, n = 0;

	for (i = 0; i < ta->nr_alloc; i++)
		n += ta->live[i];
	return n;
}

/* Per-test state; the exit hook frees whatever a failed test left. */
struct test_ctx {
	struct test_alloc ta;
	struct x86_mapping_info info;
	pgd_t *pgd;
};

static int ident_map_test_init(struct kunit *test)
{
	struct test_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	ctx->info.alloc_pgt_page = test_alloc_page;
	ctx->info.free_pgt_page = test_free_page;
	ctx->info.context = &ctx->ta;
	ctx->pgd = test_alloc_pgd(&ctx->ta);
	KUNIT_ASSERT_NOT_NULL(test, ctx->pgd);
	test->priv = ctx;
	return 0;
}

/*
 * Frees what the code under test did not, so a failed test leaks nothing;
 * keeps the count of user copies found for the exit hook.
 */
static void test_free_leftovers(struct test_alloc *ta)
{
	int copies, index;
	int i;

	for (i = 0; i < ta->nr_alloc; i++)
		if (ta->live[i])
			test_release(ta, i);
	copies = ta->nr_user_copies;
	index = ta->copied_index;
	memset(ta, 0, sizeof(*ta));
	ta->nr_user_copies = copies;
	ta->copied_index = index;
}

static void ident_map_test_exit(struct kunit *test)
{
	struct test_ctx *ctx = test->priv;

	if (!ctx)
		return;
	test_free_leftovers(&ctx->ta);
	KUNIT_EXPECT_EQ_MSG(test, ctx->ta.nr_user_copies, 0,
			    "PGDs whose next page got a copy of their entries (entry %d)",
			    ctx->ta.copied_index);
}

/* Table pages allocated by the mapping calls, not counting the PGD. */
static int test_nr_tables(const struct test_ctx *ctx)
{
	return ctx->ta.nr_alloc - 1;
}

/* Maps [pstart, pend) with the test's mapping info and table allocator. */
static int test_map(struct test_ctx *ctx, unsigned long pstart,
		    unsigned long pend)
{
	return kernel_ident_mapping_init(&ctx->info, ctx->pgd, pstart, pend);
}

/* What the software walk finds for one virtual address. */
struct test_leaf {
	unsigned long pa;	/* physical address it maps to */
	unsigned long size;	/* PAGE_SIZE, PMD_SIZE, PUD_SIZE; 0: unmapped */
	unsigned long entry;	/* the leaf entry, every bit of it */
	unsigned long flags;	/* flags of the leaf entry */
	unsigned long pgd_flags;	/* flags of the PGD entry (5-level) */
	unsigned long p4d_flags;	/* flags of the P4D (4-level: PGD) entry */
	unsigned long pud_flags;	/* flags of the PUD entry, if a table */
	/* Physical addresses of the tables the walk went through, below the PGD. */
	unsigned long tables[3];
	int nr_tables;
};

static void test_walk(pgd_t *pgd_page, unsigned long va, struct test_leaf *l)
{
	pgd_t *pgd = pgd_page + pgd_index(va);
	p4d_t *p4d;
	pud_t *pud;
	pmd_t *pmd;
	pte_t *pte;

	memset(l, 0, sizeof(*l));
	if (!pgd_present(*pgd))
		return;
	if (pgtable_l5_enabled()) {
		l->pgd_flags = pgd_flags(*pgd);
		l->tables[l->nr_tables++] = pgd_val(*pgd) & PTE_PFN_MASK;
	}
	p4d = p4d_offset(pgd, va);
	if (!p4d_present(*p4d))
		return;
	l->p4d_flags = p4d_flags(*p4d);
	l->tables[l->nr_tables++] = p4d_val(*p4d) & PTE_PFN_MASK;
	pud = pud_offset(p4d, va);
	if (!pud_present(*pud))
		return;
	if (pud_leaf(*pud)) {
		l->size = PUD_SIZE;
		l->entry = pud_val(*pud);
		l->pa = (pud_pfn(*pud) << PAGE_SHIFT) + (va & ~PUD_MASK);
		l->flags = pud_flags(*pud);
		return;
	}
	l->pud_flags = pud_flags(*pud);
	l->tables[l->nr_tables++] = pud_val(*pud) & PTE_PFN_MASK;
	pmd = pmd_offset(pud, va);
	if (!pmd_present(*pmd))
		return;
	if (pmd_leaf(*pmd)) {
		l->size = PMD_SIZE;
		l->entry = pmd_val(*pmd);
		l->pa = (pmd_pfn(*pmd) << PAGE_SHIFT) + (va & ~PMD_MASK);
		l->flags = pmd_flags(*pmd);
		return;
	}
	pte = pte_offset_kernel(pmd, va);
	if (!pte_present(*pte))
		return;
	l->size = PAGE_SIZE;
	l->entry = pte_val(*pte);
	l->pa = (pte_pfn(*pte) << PAGE_SHIFT) + (va & ~PAGE_MASK);
	l->flags = pte_flags(*pte);
}

/* Bytes of virtual address space mapped by all leaves under @pgd_page. */
static unsigned long test_mapped_bytes(pgd_t *pgd_page)
{
	unsigned long bytes = 0;
	int i, j, k, m;

	for (i = 0; i < PTRS_PER_PGD; i++) {
		pgd_t *pgd = pgd_page + i;

		if (!pgd_present(*pgd))
			continue;
		for (j = 0; j < PTRS_PER_P4D; j++) {
			p4d_t *p4d = p4d_offset(pgd, 0) + j;
			pud_t *pud;

			if (!p4d_present(*p4d))
				continue;
			pud = pud_offset(p4d, 0);
			for (k = 0; k < PTRS_PER_PUD; k++) {
				pmd_t *pmd;

				if (!pud_present(pud[k]))
					continue;
				if (pud_leaf(pud[k])) {
					bytes += PUD_SIZE;
					continue;
				}
				pmd = pmd_offset(pud + k, 0);
				for (m = 0; m < PTRS_PER_PMD; m++)
					if (pmd_present(pmd[m]))
						bytes += pmd_leaf(pmd[m]) ?
							 PMD_SIZE : PAGE_SIZE;
			}
		}
	}
	return bytes;
}

/* PUD-aligned page_offset_base values as RANDOMIZE_MEMORY picks them. */
#define OFF_RAND1	0xffffa0c6c0000000UL
#define OFF_RAND2	0xffff9d7e00000000UL
/* Aligned to 2 MiB only. */
#define OFF_PMD		(__PAGE_OFFSET_BASE_L4 + SZ_2M)

/*
 * The offsets above are in the 4-level direct map range.  With 5-level
 * paging they move to the 5-level one, where the direct map is then: the
 * 4-level range is in the top PGD entry, and mapping there needs mainline
 * commit f666c92090a4 ("x86/mm/ident_map: Fix theoretical virtual address
 * overflow to zero"), which 6.12 does not have.
 */
static unsigned long test_offset(unsigned long offset)
{
	if (pgtable_l5_enabled() && offset >= __PAGE_OFFSET_BASE_L4)
		return offset - __PAGE_OFFSET_BASE_L4 + __PAGE_OFFSET_BASE_L5;
	return offset;
}

struct ident_map_case {
	const char *desc;
	unsigned long offset;
	unsigned long pstart, pend;
	bool gbpages;
	unsigned long page_flag;
	unsigned long kernpg_flag;	/* 0: the default, _KERNPG_TABLE */
	/* Expected shape: PUD and PMD tables allocated (4-level paging). */
	int nr_pud, nr_pmd;
	/* The same call with 5-level paging also allocates P4D tables. */
	int nr_p4d;
};

static const struct ident_map_case ident_map_cases[] = {
	{ "offset 0, one 2M page", 0, SZ_16M, SZ_16M + SZ_2M,
	  false, __PAGE_KERNEL_LARGE_EXEC, 0, 1, 1, 1 },
	{ "offset L4 base (PGD-aligned), one 2M page", __PAGE_OFFSET_BASE_L4,
	  SZ_16M, SZ_16M + SZ_2M, false, __PAGE_KERNEL_LARGE_EXEC, 0, 1, 1, 1 },
	{ "random PUD-aligned offset 1, one 2M page", OFF_RAND1,
	  SZ_16M, SZ_16M + SZ_2M, false, __PAGE_KERNEL_LARGE_EXEC, 0, 1, 1, 1 },
	{ "random PUD-aligned offset 2, 64M", OFF_RAND2,
	  SZ_1G + SZ_16M, SZ_1G + SZ_16M + SZ_64M, false,
	  __PAGE_KERNEL_LARGE_EXEC, 0, 1, 1, 1 },
	{ "PMD-aligned offset, one 2M page", OFF_PMD, SZ_16M, SZ_16M + SZ_2M,
	  false, __PAGE_KERNEL_LARGE_EXEC, 0, 1, 1, 1 },
	/* Ends not 2M aligned: the range is rounded out to 2M. */
	{ "unaligned start and end, start below end in 2M", __PAGE_OFFSET_BASE_L4,
	  SZ_16M + 0x123, SZ_16M + SZ_4M + 0x456, false,
	  __PAGE_KERNEL_LARGE_EXEC, 0, 1, 1, 1 },
	{ "unaligned start and end, start above end in 2M", OFF_RAND1,
	  SZ_16M + SZ_2M - SZ_4K, SZ_16M + SZ_4M + SZ_4K, false,
	  __PAGE_KERNEL_LARGE_EXEC, 0, 1, 1, 1 },
	{ "unaligned start and end in one 2M page", OFF_PMD,
	  SZ_16M + SZ_4K, SZ_16M + SZ_8K, false,
	  __PAGE_KERNEL_LARGE_EXEC, 0, 1, 1, 1 },
	{ "unaligned start, aligned end", OFF_RAND2,
	  SZ_16M + SZ_1M, SZ_16M + SZ_4M, false,
	  __PAGE_KERNEL_LARGE_EXEC, 0, 1, 1, 1 },
	{ "aligned start, unaligned end", OFF_RAND2,
	  SZ_16M, SZ_16M + SZ_4M + SZ_1M, false,
	  __PAGE_KERNEL_LARGE_EXEC, 0, 1, 1, 1 },
	{ "gbpages, unaligned ends around a whole 1G", 0,
	  SZ_1G - SZ_4K, SZ_2G + SZ_4K, true,
	  __PAGE_KERNEL_LARGE_EXEC, 0, 1, 2, 1 },
	{ "straddles 1G, PUD-aligned offset", OFF_RAND1,
	  SZ_1G - SZ_4M, SZ_1G + SZ_4M, false, __PAGE_KERNEL_LARGE_EXEC, 0,
	  1, 2, 1 },
	{ "straddles 1G, PMD-aligned offset", OFF_PMD,
	  SZ_1G - SZ_4M, SZ_1G + SZ_4M, false, __PAGE_KERNEL_LARGE_EXEC, 0,
	  1, 2, 1 },
	{ "straddles 512G, PGD-aligned offset", __PAGE_OFFSET_BASE_L4,
	  SZ_512G - SZ_2M, SZ_512G + SZ_2M, false, __PAGE_KERNEL_LARGE_EXEC, 0,
	  2, 2, 1 },
	{ "straddles 512G, offset 0", 0,
	  SZ_512G - SZ_4M, SZ_512G + SZ_2M, false, __PAGE_KERNEL_LARGE, 0,
	  2, 2, 1 },
	{ "gbpages, one full aligned 1G", 0, SZ_1G, SZ_2G,
	  true, __PAGE_KERNEL_LARGE_EXEC, 0, 1, 0, 1 },
	{ "no gbpages, one full aligned 1G", 0, SZ_1G, SZ_2G,
	  false, __PAGE_KERNEL_LARGE_EXEC, 0, 1, 1, 1 },
	{ "gbpages, partial 1G at both ends", OFF_RAND1,
	  SZ_1G - SZ_2M, 3UL * SZ_1G + SZ_2M, true, __PAGE_KERNEL_LARGE_EXEC, 0,
	  1, 2, 1 },
	{ "gbpages, 1G aligned in VA only (PMD-aligned offset)", OFF_PMD,
	  SZ_1G - SZ_2M, SZ_2G - SZ_2M, true, __PAGE_KERNEL_LARGE_EXEC, 0,
	  1, 1, 1 },
	/* Table flags unlike the default: each level must use kernpg_flag. */
	{ "NX leaves, user page table flags", OFF_RAND2, SZ_16M, SZ_16M + SZ_4M,
	  false, __PAGE_KERNEL_LARGE, _PAGE_TABLE_NOENC, 1, 1, 1 },
};

static void ident_map_case_desc(const struct ident_map_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ident_map, ident_map_cases, ident_map_case_desc);

static int test_expected_tables(const struct ident_map_case *c)
{
	return c->nr_pud + c->nr_pmd + (pgtable_l5_enabled() ? c->nr_p4d : 0);
}

static void test_setup_info(struct test_ctx *ctx, const struct ident_map_case *c)
{
	ctx->info.offset = c->offset;
	ctx->info.page_flag = c->page_flag;
	ctx->info.kernpg_flag = c->kernpg_flag;
	ctx->info.direct_gbpages = c->gbpages;
}

/*
 * Checks every 2M step of [pstart, pend), rounded out to 2M: each leaf entry
 * bit for bit, each table entry's flags, and that each table entry points
 * at a page of the test allocator.
 */
static void test_check_mapping(struct kunit *test, struct test_ctx *ctx,
			       const struct ident_map_case *c)
{
	pgd_t *pgd = ctx->pgd;
	unsigned long kernpg = (c->kernpg_flag ?: _KERNPG_TABLE) &
			       __default_kernel_pte_mask;
	unsigned long start = round_down(c->pstart, PMD_SIZE);
	unsigned long end = round_up(c->pend, PMD_SIZE);
	unsigned long pa;
	struct test_leaf l;

	for (pa = start; pa < end; pa += PMD_SIZE) {
		unsigned long va = pa + c->offset;
		unsigned long gib = round_down(va, PUD_SIZE);
		/*
		 * A 1G leaf only where the whole 1G lies inside the requested
		 * range and maps to a 1G-aligned physical address.
		 */
		bool gbpage = c->gbpages && IS_ALIGNED(c->offset, PUD_SIZE) &&
			      gib >= c->pstart + c->offset &&
			      gib + PUD_SIZE <= c->pend + c->offset;
		unsigned long want_size = gbpage ? PUD_SIZE : PMD_SIZE;
		unsigned long want_entry = (round_down(va, want_size) - c->offset) |
					   c->page_flag;
		int i;

		test_walk(pgd, va, &l);
		KUNIT_ASSERT_EQ_MSG(test, l.pa, pa, "va %#lx: wrong pa", va);
		KUNIT_ASSERT_EQ_MSG(test, l.size, want_size,
				    "va %#lx: wrong leaf size", va);
		/* The pfn helpers mask the bits below the leaf size; this does not. */
		KUNIT_ASSERT_EQ_MSG(test, l.entry, want_entry,
				    "va %#lx: leaf entry differs", va);
		for (i = 0; i < l.nr_tables; i++)
			KUNIT_ASSERT_TRUE_MSG(test,
					      test_is_live_page(&ctx->ta, l.tables[i]),
					      "va %#lx: table %d is not one of ours", va, i);
		KUNIT_ASSERT_EQ_MSG(test, l.p4d_flags, kernpg | _PAGE_NOPTISHADOW,
				    "va %#lx: wrong P4D entry flags", va);
		if (pgtable_l5_enabled())
			KUNIT_ASSERT_EQ_MSG(test, l.pgd_flags,
					    kernpg | _PAGE_NOPTISHADOW,
					    "va %#lx: wrong PGD entry flags", va);
		if (want_size == PMD_SIZE)
			KUNIT_ASSERT_EQ_MSG(test, l.pud_flags, kernpg,
					    "va %#lx: wrong PUD entry flags", va);
	}

	/* Nothing around the range, and nothing anywhere else. */
	if (start + c->offset >= PMD_SIZE) {
		test_walk(pgd, start + c->offset - PMD_SIZE, &l);
		KUNIT_EXPECT_EQ_MSG(test, l.size, 0UL, "mapped below the range");
	}
	if (end + c->offset != 0) {
		test_walk(pgd, end + c->offset, &l);
		KUNIT_EXPECT_EQ_MSG(test, l.size, 0UL, "mapped above the range");
	}
	KUNIT_EXPECT_EQ_MSG(test, test_mapped_bytes(pgd), end - start,
			    "mapped bytes differ from the rounded range");
}

static void ident_map_maps_range(struct kunit *test)
{
	struct ident_map_case tc = *(const struct ident_map_case *)test->param_value;
	const struct ident_map_case *c = &tc;
	struct test_ctx *ctx = test->priv;
	int ret;

	tc.offset = test_offset(tc.offset);

	test_setup_info(ctx, c);
	ret = kernel_ident_mapping_init(&ctx->info, ctx->pgd, c->pstart, c->pend);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "failed after %d table pages",
			    test_nr_tables(ctx));
	test_check_mapping(test, ctx, c);
	KUNIT_EXPECT_EQ_MSG(test, test_nr_tables(ctx), test_expected_tables(c),
			    "page-table pages allocated");

	kernel_ident_mapping_free(&ctx->info, ctx->pgd);
	KUNIT_EXPECT_EQ(test, test_nr_live(&ctx->ta), 0);
	KUNIT_EXPECT_EQ(test, ctx->ta.nr_bad_free, 0);
}

/* Failing allocation N, for every N, is -ENOMEM and leaks nothing. */
static void ident_map_enomem_frees_all(struct kunit *test)
{
	struct ident_map_case tc = *(const struct ident_map_case *)test->param_value;
	const struct ident_map_case *c = &tc;
	struct test_ctx *ctx = test->priv;
	int n, nr_calls = test_expected_tables(c);

	tc.offset = test_offset(tc.offset);

	for (n = 1; n <= nr_calls; n++) {
		struct test_alloc *ta = &ctx->ta;
		int ret;

		test_free_leftovers(ta);
		ctx->pgd = test_alloc_pgd(ta);
		KUNIT_ASSERT_NOT_NULL(test, ctx->pgd);
		ta->fail_at = n + 1;	/* call 1 was the PGD */
		test_setup_info(ctx, c);

		ret = kernel_ident_mapping_init(&ctx->info, ctx->pgd,
						c->pstart, c->pend);
		KUNIT_EXPECT_EQ_MSG(test, ret, -ENOMEM,
				    "allocation %d of %d failed", n, nr_calls);
		kernel_ident_mapping_free(&ctx->info, ctx->pgd);
		KUNIT_EXPECT_EQ_MSG(test, test_nr_live(ta), 0,
				    "pages leaked when allocation %d of %d failed",
				    n, nr_calls);
		KUNIT_EXPECT_EQ(test, ta->nr_bad_free, 0);
	}
}

/* An offset no leaf can map is refused before anything is allocated. */
static void ident_map_refuses_unaligned_offset(struct kunit *test)
{
	static const unsigned long offsets[] = {
		OFF_RAND1 + SZ_4K, OFF_RAND1 + SZ_1M, OFF_PMD - SZ_4K, 1,
	};
	struct test_ctx *ctx = test->priv;
	int i;

	ctx->info.page_flag = __PAGE_KERNEL_LARGE_EXEC;
	for (i = 0; i < ARRAY_SIZE(offsets); i++) {
		ctx->info.offset = offsets[i];
		ctx->info.direct_gbpages = i & 1;
		KUNIT_EXPECT_EQ_MSG(test, test_map(ctx, SZ_16M, SZ_16M + SZ_2M),
				    -EINVAL, "offset %#lx", offsets[i]);
		KUNIT_EXPECT_EQ_MSG(test, test_nr_tables(ctx), 0,
				    "offset %#lx: tables allocated", offsets[i]);
	}
	KUNIT_EXPECT_EQ(test, test_mapped_bytes(ctx->pgd), 0UL);
}

/* A second call reuses present tables and never overwrites an entry. */
static void ident_map_reuses_present_entries(struct kunit *test)
{
	struct test_ctx *ctx = test->priv;
	const unsigned long exec = __PAGE_KERNEL_LARGE_EXEC;
	const unsigned long nx = __PAGE_KERNEL_LARGE;
	const unsigned long off = test_offset(OFF_RAND1);
	struct test_leaf l;
	int tables;

	ctx->info.offset = off;
	ctx->info.page_flag = exec;
	KUNIT_ASSERT_EQ(test, test_map(ctx, SZ_16M, SZ_16M + SZ_2M), 0);
	tables = test_nr_tables(ctx);

	ctx->info.page_flag = nx;
	KUNIT_ASSERT_EQ(test, test_map(ctx, SZ_16M, SZ_16M + SZ_4M), 0);
	KUNIT_EXPECT_EQ_MSG(test, test_nr_tables(ctx), tables,
			    "present tables were not reused");
	test_walk(ctx->pgd, off + SZ_16M, &l);
	KUNIT_EXPECT_EQ_MSG(test, l.flags, exec, "present PMD overwritten");
	test_walk(ctx->pgd, off + SZ_16M + SZ_2M, &l);
	KUNIT_EXPECT_EQ(test, l.pa, SZ_16M + SZ_2M);
	KUNIT_EXPECT_EQ(test, l.flags, nx);
}

/* A 1G leaf never replaces a present PUD table, and vice versa. */
static void ident_map_gbpage_never_over_present_pud(struct kunit *test)
{
	struct test_ctx *ctx = test->priv;
	struct test_leaf l;
	int tables;

	ctx->info.page_flag = __PAGE_KERNEL_LARGE_EXEC;
	KUNIT_ASSERT_EQ(test, test_map(ctx, SZ_1G, SZ_1G + SZ_2M), 0);
	tables = test_nr_tables(ctx);

	ctx->info.direct_gbpages = true;
	KUNIT_ASSERT_EQ(test, test_map(ctx, SZ_1G, SZ_2G), 0);
	KUNIT_EXPECT_EQ(test, test_nr_tables(ctx), tables);
	test_walk(ctx->pgd, SZ_1G + SZ_512M, &l);
	KUNIT_EXPECT_EQ_MSG(test, l.size, PMD_SIZE, "PUD table replaced");
	KUNIT_EXPECT_EQ(test, l.pa, SZ_1G + SZ_512M);
	KUNIT_EXPECT_EQ(test, test_mapped_bytes(ctx->pgd), SZ_1G);

	/* A present 1G leaf stays when a sub-range is mapped again. */
	KUNIT_ASSERT_EQ(test, test_map(ctx, SZ_2G, 3UL * SZ_1G), 0);
	tables = test_nr_tables(ctx);
	ctx->info.direct_gbpages = false;
	KUNIT_ASSERT_EQ(test, test_map(ctx, SZ_2G + SZ_2M, SZ_2G + SZ_4M), 0);
	KUNIT_EXPECT_EQ(test, test_nr_tables(ctx), tables);
	test_walk(ctx->pgd, SZ_2G + SZ_2M, &l);
	KUNIT_EXPECT_EQ_MSG(test, l.size, PUD_SIZE, "1G leaf replaced");
}

/* What hibernation resume does: map RAM at the booted page_offset_base. */
static void ident_map_at_page_offset_base(struct kunit *test)
{
	struct test_ctx *ctx = test->priv;
	unsigned long page = get_zeroed_page(GFP_KERNEL);
	unsigned long pa;
	struct test_leaf l;

	KUNIT_ASSERT_NE(test, page, 0UL);
	pa = __pa(page);
	ctx->info.offset = __PAGE_OFFSET;
	ctx->info.page_flag = __PAGE_KERNEL_LARGE_EXEC;
	KUNIT_EXPECT_EQ(test, test_map(ctx, round_down(pa, PMD_SIZE),
				       round_up(pa + 1, PMD_SIZE)), 0);
	test_walk(ctx->pgd, page, &l);
	free_page(page);
	KUNIT_EXPECT_EQ(test, l.pa, pa);
	KUNIT_EXPECT_EQ(test, l.size, PMD_SIZE);
}

static void ident_map_five_level(struct kunit *test)
{
	struct test_ctx *ctx = test->priv;
	struct test_leaf l;

	if (!pgtable_l5_enabled())
		kunit_skip(test, "5-level paging is off (no LA57 or no5lvl)");

	ctx->info.page_flag = __PAGE_KERNEL_LARGE_EXEC;
	/* 256T apart: two PGD entries, each with its own P4D table. */
	KUNIT_ASSERT_EQ(test, test_map(ctx, SZ_16M, SZ_16M + SZ_2M), 0);
	KUNIT_ASSERT_EQ(test, test_map(ctx, PGDIR_SIZE + SZ_16M,
				       PGDIR_SIZE + SZ_16M + SZ_2M), 0);
	KUNIT_EXPECT_EQ(test, test_nr_tables(ctx), 6);
	test_walk(ctx->pgd, PGDIR_SIZE + SZ_16M, &l);
	KUNIT_EXPECT_EQ(test, l.pa, PGDIR_SIZE + SZ_16M);
	KUNIT_EXPECT_EQ(test, l.pgd_flags,
			(_KERNPG_TABLE & __default_kernel_pte_mask) |
			_PAGE_NOPTISHADOW);
}

/*
 * Every case's PGD is checked for a user copy of its entries when it is
 * freed (test_alloc_pgd()), which proves something only with PTI on.  This
 * case skips without PTI, so a boot that must run it fails when pti=on was
 * not honoured; with PTI it maps in the user half, where PTI would copy.
 */
static void ident_map_pti_user_half(struct kunit *test)
{
	struct test_ctx *ctx = test->priv;

	if (!cpu_feature_enabled(X86_FEATURE_PTI))
		kunit_skip(test, "page table isolation is off (boot with pti=on)");

	ctx->info.page_flag = __PAGE_KERNEL_LARGE_EXEC;
	KUNIT_ASSERT_EQ(test, test_map(ctx, SZ_16M, SZ_16M + SZ_2M), 0);
	KUNIT_EXPECT_NULL_MSG(test, memchr_inv((void *)ctx->pgd + PAGE_SIZE,
					       TEST_POISON, PAGE_SIZE),
			      "the PGD entry was copied to the next page");
}

static struct kunit_case ident_map_test_cases[] = {
	KUNIT_CASE_PARAM(ident_map_maps_range, ident_map_gen_params),
	KUNIT_CASE_PARAM(ident_map_enomem_frees_all, ident_map_gen_params),
	KUNIT_CASE(ident_map_refuses_unaligned_offset),
	KUNIT_CASE(ident_map_reuses_present_entries),
	KUNIT_CASE(ident_map_gbpage_never_over_present_pud),
	KUNIT_CASE(ident_map_at_page_offset_base),
	KUNIT_CASE(ident_map_five_level),
	KUNIT_CASE(ident_map_pti_user_half),
	{}
};

static struct kunit_suite ident_map_test_suite = {
	.name = "x86_ident_map",
	.init = ident_map_test_init,
	.exit = ident_map_test_exit,
	.test_cases = ident_map_test_cases,
};

kunit_test_suite(ident_map_test_suite);
