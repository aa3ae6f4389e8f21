// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the temporary page tables of x86-64 hibernation resume.
 *
 * Before it copies the image, the restore kernel switches to page tables
 * built from safe pages: a text mapping of the image kernel's entry point
 * at the address the image kernel uses for it, and the direct mapping of
 * RAM at __PAGE_OFFSET, which may be randomized.  The relocated restore
 * code runs from a page of the direct mapping, copies the image through
 * it and jumps through the text mapping.  The tests build the tables with
 * __set_up_temporary_mappings() in pages of their own and translate
 * addresses through them as the CPU would; they never load them.
 */

#include <kunit/test.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/range.h>
#include <linux/sizes.h>
#include <asm/page.h>

#include "hibernate.h"

#define PGTABLE_TEST_MAX_PAGES	64

/* Records its pages, so that they can be freed and recognised in a walk. */
struct pgtable_test_alloc {
	struct kunit *test;
	void *pages[PGTABLE_TEST_MAX_PAGES];
	int nr;
	int requests;
	int fail_at;	/* the request that fails, or -1 */
};

static void *pgtable_test_alloc_page(void *context)
{
	struct pgtable_test_alloc *a = context;
	void *page;

	if (a->requests++ == a->fail_at)
		return NULL;
	if (a->nr == PGTABLE_TEST_MAX_PAGES) {
		KUNIT_FAIL(a->test, "more than %d tables", PGTABLE_TEST_MAX_PAGES);
		return NULL;
	}
	page = (void *)get_zeroed_page(GFP_KERNEL);
	if (page)
		a->pages[a->nr++] = page;
	return page;
}

static void pgtable_test_free(struct pgtable_test_alloc *a)
{
	while (a->nr)
		free_page((unsigned long)a->pages[--a->nr]);
	a->requests = 0;
	a->fail_at = -1;
}

static int pgtable_test_init(struct kunit *test)
{
	struct pgtable_test_alloc *a;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	a->test = test;
	a->fail_at = -1;
	test->priv = a;
	return 0;
}

static void pgtable_test_exit(struct kunit *test)
{
	pgtable_test_free(test->priv);
}

static pgd_t *pgtable_test_build(struct kunit *test, unsigned long offset,
				 unsigned long jump, unsigned long jump_phys,
				 const struct range *ranges, int nr)
{
	return __set_up_temporary_mappings(pgtable_test_alloc_page, test->priv,
					   offset, jump, jump_phys, ranges, nr);
}

/* The table an entry points to, if it is one of the test's pages. */
static unsigned long *pgtable_test_table(struct pgtable_test_alloc *a,
					 unsigned long entry)
{
	int i;

	for (i = 0; i < a->nr; i++)
		if (__pa(a->pages[i]) == (entry & PTE_PFN_MASK))
			return a->pages[i];
	return NULL;
}

/* What the CPU makes of a virtual address under the tables. */
struct pgtable_test_xlate {
	bool present;
	bool foreign;		/* through a table the test did not allocate */
	bool writable;		/* RW at every level */
	bool executable;	/* NX at no level */
	bool reserved;		/* address bits below the leaf size are set */
	phys_addr_t pa;
};

static struct pgtable_test_xlate pgtable_test_xlate(struct kunit *test,
						    pgd_t *pgd,
						    unsigned long va)
{
	struct pgtable_test_xlate x = { .writable = true, .executable = true };
	unsigned long *table = (unsigned long *)pgd;
	int level = pgtable_l5_enabled() ? 5 : 4;
	unsigned long entry, frame, size;

	for (; level > 0; level--) {
		size = 1UL << (PAGE_SHIFT + 9 * (level - 1));
		entry = table[(va / size) % PTRS_PER_PTE];
		if (!(entry & _PAGE_PRESENT))
			return x;
		x.writable &= !!(entry & _PAGE_RW);
		x.executable &= !(entry & _PAGE_NX);

		if (level == 1 || (level <= 3 && (entry & _PAGE_PSE))) {
			frame = entry & PTE_PFN_MASK;
			if (level > 1)
				frame &= ~_PAGE_PAT_LARGE;
			x.reserved = frame & (size - 1);
			x.pa = (frame & ~(size - 1)) | (va & (size - 1));
			x.present = true;
			return x;
		}

		table = pgtable_test_table(test->priv, entry);
		if (!table) {
			x.foreign = true;
			return x;
		}
	}
	return x;
}

static void pgtable_test_expect_mapped(struct kunit *test, pgd_t *pgd,
				       unsigned long va, phys_addr_t pa,
				       bool writable)
{
	struct pgtable_test_xlate x = pgtable_test_xlate(test, pgd, va);

	KUNIT_EXPECT_FALSE_MSG(test, x.foreign, "%lx: a foreign table", va);
	KUNIT_EXPECT_TRUE_MSG(test, x.present, "%lx: not mapped", va);
	if (!x.present)
		return;
	KUNIT_EXPECT_EQ_MSG(test, x.pa, pa, "%lx: the wrong page", va);
	KUNIT_EXPECT_FALSE_MSG(test, x.reserved, "%lx: reserved bits set", va);
	KUNIT_EXPECT_TRUE_MSG(test, x.executable, "%lx: NX", va);
	if (writable)
		KUNIT_EXPECT_TRUE_MSG(test, x.writable, "%lx: read-only", va);
}

static void pgtable_test_expect_unmapped(struct kunit *test, pgd_t *pgd,
					 unsigned long va)
{
	struct pgtable_test_xlate x = pgtable_test_xlate(test, pgd, va);

	KUNIT_EXPECT_FALSE_MSG(test, x.present, "%lx: mapped to %llx", va,
			       (unsigned long long)x.pa);
}

/* The default direct mapping of the paging mode the test runs in. */
static unsigned long pgtable_test_offset_base(void)
{
	return pgtable_l5_enabled() ? __PAGE_OFFSET_BASE_L5 :
				      __PAGE_OFFSET_BASE_L4;
}

/*
 * Entry points in the kernel image mapping and physical addresses equal to
 * them modulo 2M, as in an image header, whose 2M pages have other indexes
 * than the virtual ones at every level.
 */
static const struct {
	unsigned long jump, jump_phys;
} pgtable_test_targets[] = {
	{ __START_KERNEL_map + SZ_16M + SZ_2M + 0x1e5123,
	  SZ_128M + SZ_8M + 0x1e5123 },
	{ __START_KERNEL_map + SZ_512M + SZ_4M + 0x40,
	  SZ_4G + SZ_64M + 0x40 },
};

static void pgtable_text_mapping_maps_entry_point(struct kunit *test)
{
	unsigned long jump, phys, base;
	pgd_t *pgd;
	int i;

	for (i = 0; i < ARRAY_SIZE(pgtable_test_targets); i++) {
		jump = pgtable_test_targets[i].jump;
		phys = pgtable_test_targets[i].jump_phys;
		pgd = pgtable_test_build(test, pgtable_test_offset_base(),
					 jump, phys, NULL, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pgd));

		/* The whole 2M page, executable; it need not be writable. */
		base = jump & PMD_MASK;
		pgtable_test_expect_mapped(test, pgd, jump, phys, false);
		pgtable_test_expect_mapped(test, pgd, base, phys & PMD_MASK,
					   false);
		pgtable_test_expect_mapped(test, pgd, base + SZ_2M - 1,
					   (phys & PMD_MASK) + SZ_2M - 1,
					   false);
		/* Nothing else. */
		pgtable_test_expect_unmapped(test, pgd, base - 1);
		pgtable_test_expect_unmapped(test, pgd, base + SZ_2M);

		pgtable_test_free(test->priv);
	}
}

/*
 * RAM as pfn_mapped has it: two ranges sharing the first 2M page, RAM
 * above 4G that ends off a 2M boundary, and a range whose direct mapping
 * crosses a top-level entry.
 */
static void pgtable_direct_map_covers_ram(struct kunit *test)
{
	unsigned long jump = pgtable_test_targets[0].jump;
	unsigned long phys = pgtable_test_targets[0].jump_phys;
	const unsigned long end_hi = SZ_4G + SZ_1G + SZ_4M + 3 * PAGE_SIZE;
	/*
	 * The default offset, aligned to a top-level entry, and two that
	 * KASLR may pick, aligned only to 1G.
	 */
	const unsigned long offsets[] = {
		pgtable_test_offset_base(),
		pgtable_test_offset_base() + SZ_1G,
		pgtable_test_offset_base() + 141UL * SZ_1G,
	};
	unsigned long offset, cross;
	struct range ram[4];
	pgd_t *pgd;
	int i;

	for (i = 0; i < ARRAY_SIZE(offsets); i++) {
		offset = offsets[i];
		/* The physical address mapped at the next top-level entry. */
		cross = PGDIR_SIZE - (offset & (PGDIR_SIZE - 1));
		ram[0] = (struct range){ 0, PHYS_PFN(SZ_512K + SZ_128K) };
		ram[1] = (struct range){ PHYS_PFN(SZ_1M), PHYS_PFN(SZ_2G) };
		ram[2] = (struct range){ PHYS_PFN(SZ_4G), PHYS_PFN(end_hi) };
		ram[3] = (struct range){ PHYS_PFN(cross - SZ_1G),
					 PHYS_PFN(cross + SZ_1G) };

		pgd = pgtable_test_build(test, offset, jump, phys, ram,
					 ARRAY_SIZE(ram));
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(pgd), "offset %lx", offset);

		pgtable_test_expect_mapped(test, pgd, offset, 0, true);
		pgtable_test_expect_mapped(test, pgd, offset + SZ_1M + 5,
					   SZ_1M + 5, true);
		pgtable_test_expect_mapped(test, pgd, offset + SZ_2G - 1,
					   SZ_2G - 1, true);
		pgtable_test_expect_mapped(test, pgd, offset + SZ_4G, SZ_4G,
					   true);
		pgtable_test_expect_mapped(test, pgd, offset + end_hi - 1,
					   end_hi - 1, true);
		pgtable_test_expect_mapped(test, pgd, offset + cross - 1,
					   cross - 1, true);
		pgtable_test_expect_mapped(test, pgd, offset + cross, cross,
					   true);
		pgtable_test_expect_mapped(test, pgd,
					   offset + cross + SZ_1G - 1,
					   cross + SZ_1G - 1, true);

		/* The hole, and past the 2M page the last pfn is in. */
		pgtable_test_expect_unmapped(test, pgd, offset + SZ_2G);
		pgtable_test_expect_unmapped(test, pgd, offset + SZ_4G - 1);
		pgtable_test_expect_unmapped(test, pgd,
					     offset + ALIGN(end_hi, SZ_2M));
		pgtable_test_expect_unmapped(test, pgd,
					     offset + cross + SZ_1G);

		/* The text mapping is still there. */
		pgtable_test_expect_mapped(test, pgd, jump, phys, false);

		pgtable_test_free(test->priv);
	}
}

/*
 * An entry point in the top-level entry, PUD and PMD table of the direct
 * mapping: the direct mapping must be added beside the text mapping, not
 * replace the entry the text mapping made.
 */
static void pgtable_direct_map_keeps_text_mapping(struct kunit *test)
{
	static const struct range ram[] = {
		{ .start = 0, .end = PHYS_PFN(SZ_8M) },
	};
	unsigned long offset = pgtable_test_offset_base() + SZ_1G;
	unsigned long jump = offset + SZ_512M + 0x1e5123;
	unsigned long phys = SZ_128M + 0x1e5123;
	pgd_t *pgd;

	pgd = pgtable_test_build(test, offset, jump, phys, ram,
				 ARRAY_SIZE(ram));
	KUNIT_ASSERT_FALSE(test, IS_ERR(pgd));

	pgtable_test_expect_mapped(test, pgd, jump, phys, false);
	pgtable_test_expect_mapped(test, pgd, offset + SZ_4M, SZ_4M, true);
}

static void pgtable_errors_are_returned(struct kunit *test)
{
	struct pgtable_test_alloc *a = test->priv;
	unsigned long offset = pgtable_test_offset_base() + SZ_1G;
	unsigned long jump = pgtable_test_targets[1].jump;
	unsigned long phys = pgtable_test_targets[1].jump_phys;
	static const struct range ram[] = {
		{ .start = 0, .end = PHYS_PFN(SZ_2G) },
		{ .start = PHYS_PFN(SZ_4G), .end = PHYS_PFN(SZ_8G) },
	};
	int requests, k;
	pgd_t *pgd;

	pgd = pgtable_test_build(test, offset, jump, phys, ram,
				 ARRAY_SIZE(ram));
	KUNIT_ASSERT_FALSE(test, IS_ERR(pgd));
	requests = a->requests;
	KUNIT_ASSERT_GT(test, requests, 0);
	pgtable_test_free(a);

	/* Each allocation failing in turn, the top-level table included. */
	for (k = 0; k < requests; k++) {
		a->fail_at = k;
		pgd = pgtable_test_build(test, offset, jump, phys, ram,
					 ARRAY_SIZE(ram));
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(pgd), -ENOMEM,
				    "allocation %d of %d failed", k, requests);
		KUNIT_EXPECT_EQ_MSG(test, a->requests, k + 1,
				    "allocations after the failed one");
		pgtable_test_free(a);
	}

	/* An offset the 2M leaves of the direct mapping cannot honour. */
	pgd = pgtable_test_build(test, offset + SZ_1M, jump, phys, ram,
				 ARRAY_SIZE(ram));
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(pgd), -EINVAL);
}

static struct kunit_case pgtable_test_cases[] = {
	KUNIT_CASE(pgtable_text_mapping_maps_entry_point),
	KUNIT_CASE(pgtable_direct_map_covers_ram),
	KUNIT_CASE(pgtable_direct_map_keeps_text_mapping),
	KUNIT_CASE(pgtable_errors_are_returned),
	{}
};

static struct kunit_suite pgtable_test_suite = {
	.name = "x86_hibernate_pgtable",
	.init = pgtable_test_init,
	.exit = pgtable_test_exit,
	.test_cases = pgtable_test_cases,
};

kunit_test_suite(pgtable_test_suite);
