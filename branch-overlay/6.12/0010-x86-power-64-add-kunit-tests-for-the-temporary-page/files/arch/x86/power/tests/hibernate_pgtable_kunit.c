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
 * addresses through them as the CPU would; they never load them.  They
 * run in the paging mode of the test kernel: kunit.py run --arch=x86_64
 * boots 4-level paging, with --qemu_args='-cpu max' 5-level.
 */

#include <kunit/test.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/list.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/processor.h>
#include <linux/range.h>
#include <linux/sizes.h>
#include <asm/e820/types.h>
#include <asm/init.h>
#include <asm/page.h>
#include <asm/suspend.h>
#include <xen/xen.h>

#include "../hibernate.h"

/* Keeps its pages on a list, so that they can be freed and recognised. */
struct pgtable_test_alloc {
	struct list_head pages;
	int requests;
	int fail_at;	/* the request that fails, or -1 */
};

static void *pgtable_test_alloc_page(void *context)
{
	struct pgtable_test_alloc *a = context;
	struct page *page;

	if (a->requests++ == a->fail_at)
		return NULL;
	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return NULL;
	list_add_tail(&page->lru, &a->pages);
	return page_address(page);
}

static void pgtable_test_free(struct pgtable_test_alloc *a)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, &a->pages, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	a->requests = 0;
	a->fail_at = -1;
}

static int pgtable_test_init(struct kunit *test)
{
	struct pgtable_test_alloc *a;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	INIT_LIST_HEAD(&a->pages);
	a->fail_at = -1;
	test->priv = a;
	/* The walk reads entries as native ones; Xen PV's hold machine frames. */
	if (xen_pv_domain())
		kunit_skip(test, "page table entries of Xen PV are not native");
	return 0;
}

static void pgtable_test_exit(struct kunit *test)
{
	if (test->priv)
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
	struct page *page;

	list_for_each_entry(page, &a->pages, lru)
		if (page_to_phys(page) == (entry & PTE_PFN_MASK))
			return page_address(page);
	return NULL;
}

/* What the CPU makes of a virtual address under the tables. */
struct pgtable_test_xlate {
	bool present;
	bool foreign;		/* through a table the test did not allocate */
	bool reserved;		/* a reserved bit set in an entry on the way */
	bool writable;		/* RW at every level */
	bool executable;	/* NX at no level */
	bool user;		/* U/S at every level */
	bool write_back;	/* no PAT, PCD or PWT bit in the leaf */
	phys_addr_t pa;
};

static struct pgtable_test_xlate pgtable_test_xlate(struct kunit *test,
						    pgd_t *pgd,
						    unsigned long va)
{
	struct pgtable_test_xlate x = {
		.writable = true, .executable = true, .user = true,
	};
	unsigned long *table = (unsigned long *)pgd;
	int level = pgtable_l5_enabled() ? 5 : 4;
	int va_bits = PAGE_SHIFT + 9 * level;
	unsigned long entry, frame, size;

	/* Sign-extended from the top bit the paging mode translates. */
	KUNIT_ASSERT_EQ_MSG(test, (long)(va << (64 - va_bits)) >> (64 - va_bits),
			    (long)va, "%lx is not canonical", va);

	for (; level > 0; level--) {
		size = 1UL << (PAGE_SHIFT + 9 * (level - 1));
		entry = table[(va / size) % PTRS_PER_PTE];
		if (!(entry & _PAGE_PRESENT))
			return x;
		x.writable &= !!(entry & _PAGE_RW);
		x.executable &= !(entry & _PAGE_NX);
		x.user &= !!(entry & _PAGE_USER);
		frame = entry & PTE_PFN_MASK;
		if (frame >> boot_cpu_data.x86_phys_bits)
			x.reserved = true;

		if (level == 1 || (level <= 3 && (entry & _PAGE_PSE))) {
			if (level > 1)
				frame &= ~_PAGE_PAT_LARGE;
			if (level == 3 && !boot_cpu_has(X86_FEATURE_GBPAGES))
				x.reserved = true;
			x.reserved |= !!(frame & (size - 1));
			x.write_back = !(entry & (_PAGE_PWT | _PAGE_PCD |
				(level > 1 ? _PAGE_PAT_LARGE : _PAGE_PAT)));
			x.pa = (frame & ~(size - 1)) | (va & (size - 1));
			x.present = true;
			return x;
		}
		if (entry & _PAGE_PSE)
			x.reserved = true;

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
	KUNIT_EXPECT_EQ_MSG(test, x.pa, pa, "%lx: mapped to %pa", va, &x.pa);
	KUNIT_EXPECT_FALSE_MSG(test, x.reserved, "%lx: reserved bits set", va);
	KUNIT_EXPECT_TRUE_MSG(test, x.executable, "%lx: NX", va);
	KUNIT_EXPECT_FALSE_MSG(test, x.user, "%lx: a user page", va);
	KUNIT_EXPECT_TRUE_MSG(test, x.write_back, "%lx: not write-back", va);
	if (writable)
		KUNIT_EXPECT_TRUE_MSG(test, x.writable, "%lx: read-only", va);
}

static void pgtable_test_expect_unmapped(struct kunit *test, pgd_t *pgd,
					 unsigned long va)
{
	struct pgtable_test_xlate x = pgtable_test_xlate(test, pgd, va);

	KUNIT_EXPECT_FALSE_MSG(test, x.foreign, "%lx: a foreign table", va);
	KUNIT_EXPECT_FALSE_MSG(test, x.present, "%lx: mapped to %pa", va,
			       &x.pa);
}

/* The default direct mapping of the paging mode the test runs in. */
static unsigned long pgtable_test_offset_base(void)
{
	return pgtable_l5_enabled() ? __PAGE_OFFSET_BASE_L5 :
				      __PAGE_OFFSET_BASE_L4;
}

/*
 * Entry points in the kernel image mapping of a KASLR kernel, below
 * KERNEL_IMAGE_SIZE, and physical addresses equal to them modulo 2M, as
 * in an image header, whose 2M pages have other indexes than the virtual
 * ones at every level.
 */
static const struct {
	unsigned long jump, jump_phys;
} pgtable_test_targets[] = {
	{ __START_KERNEL_map + SZ_16M + SZ_2M + 0x1e5123,
	  SZ_128M + SZ_8M + 0x1e5123 },
	{ __START_KERNEL_map + SZ_256M + SZ_4M + 0x40,
	  SZ_4G + SZ_64M + 0x40 },
};

static void pgtable_text_mapping_maps_entry_point(struct kunit *test)
{
	unsigned long jump, phys, base;
	pgd_t *pgd;
	int i;

	kunit_info(test, "%d-level paging\n", pgtable_l5_enabled() ? 5 : 4);

	for (i = 0; i < ARRAY_SIZE(pgtable_test_targets); i++) {
		jump = pgtable_test_targets[i].jump;
		phys = pgtable_test_targets[i].jump_phys;
		pgd = pgtable_test_build(test, pgtable_test_offset_base(),
					 jump, phys, NULL, 0);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pgd);

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
 * RAM in several ranges, two of them in one PMD table with a gap between
 * them, RAM above 4G that ends off a 2M boundary, at the default offset
 * and at offsets that KASLR may pick (aligned to 1G only), two of which
 * put the top-level and the P4D boundary (the same one with 4-level
 * paging) at 2G of RAM.
 */
static void pgtable_direct_map_covers_ram(struct kunit *test)
{
	static const struct range ram[] = {
		{ .start = 0, .end = PHYS_PFN(SZ_4M) },
		{ .start = PHYS_PFN(SZ_8M), .end = PHYS_PFN(SZ_2G + SZ_1G) },
		{ .start = PHYS_PFN(SZ_4G),
		  .end = PHYS_PFN(SZ_4G + SZ_1G + SZ_4M) + 3 },
	};
	const unsigned long end_hi = PFN_PHYS(ram[2].end);
	const unsigned long offsets[] = {
		pgtable_test_offset_base(),
		pgtable_test_offset_base() + SZ_1G,
		pgtable_test_offset_base() + PGDIR_SIZE - SZ_2G,
		pgtable_test_offset_base() + P4D_SIZE - SZ_2G,
	};
	unsigned long jump = pgtable_test_targets[0].jump;
	unsigned long phys = pgtable_test_targets[0].jump_phys;
	unsigned long offset;
	pgd_t *pgd;
	int i;

	for (i = 0; i < ARRAY_SIZE(offsets); i++) {
		offset = offsets[i];
		pgd = pgtable_test_build(test, offset, jump, phys, ram,
					 ARRAY_SIZE(ram));
		KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, pgd, "offset %lx",
						 offset);

		pgtable_test_expect_mapped(test, pgd, offset, 0, true);
		pgtable_test_expect_mapped(test, pgd, offset + SZ_4M - 1,
					   SZ_4M - 1, true);
		pgtable_test_expect_mapped(test, pgd, offset + SZ_8M, SZ_8M,
					   true);
		pgtable_test_expect_mapped(test, pgd, offset + SZ_2G - 1,
					   SZ_2G - 1, true);
		pgtable_test_expect_mapped(test, pgd, offset + SZ_2G, SZ_2G,
					   true);
		pgtable_test_expect_mapped(test, pgd, offset + SZ_2G + SZ_1G - 1,
					   SZ_2G + SZ_1G - 1, true);
		pgtable_test_expect_mapped(test, pgd, offset + SZ_4G, SZ_4G,
					   true);
		pgtable_test_expect_mapped(test, pgd, offset + end_hi - 1,
					   end_hi - 1, true);

		/* The gaps, and past the 2M page the last pfn is in. */
		pgtable_test_expect_unmapped(test, pgd, offset + SZ_4M);
		pgtable_test_expect_unmapped(test, pgd, offset + SZ_8M - 1);
		pgtable_test_expect_unmapped(test, pgd,
					     offset + SZ_2G + SZ_1G);
		pgtable_test_expect_unmapped(test, pgd, offset + SZ_4G - 1);
		pgtable_test_expect_unmapped(test, pgd,
					     offset + ALIGN(end_hi, SZ_2M));

		pgtable_test_free(test->priv);
	}
}

/*
 * The tables the restore would build on this machine: its own
 * restore_registers() as the entry point and its pfn_mapped at
 * __PAGE_OFFSET.  The globals are only read, into a copy taken with
 * memory hotplug held off, which changes them.
 */
static void pgtable_maps_this_kernel(struct kunit *test)
{
	unsigned long jump = (unsigned long)restore_registers;
	unsigned long phys = __pa_symbol(restore_registers);
	struct range *ranges;
	phys_addr_t start, end;
	pgd_t *pgd;
	int i, nr;

	ranges = kunit_kmalloc_array(test, E820_MAX_ENTRIES, sizeof(*ranges),
				     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ranges);
	get_online_mems();
	nr = nr_pfn_mapped;
	memcpy(ranges, pfn_mapped, nr * sizeof(*ranges));
	put_online_mems();

	pgd = pgtable_test_build(test, __PAGE_OFFSET, jump, phys, ranges, nr);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pgd);

	pgtable_test_expect_mapped(test, pgd, jump, phys, false);
	for (i = 0; i < nr; i++) {
		start = PFN_PHYS(ranges[i].start);
		end = PFN_PHYS(ranges[i].end);
		pgtable_test_expect_mapped(test, pgd, __PAGE_OFFSET + start,
					   start, true);
		pgtable_test_expect_mapped(test, pgd, __PAGE_OFFSET + end - 1,
					   end - 1, true);
	}
}

/*
 * A guard of the build order: an entry point in the top-level entry, PUD
 * and PMD table of the direct mapping (which no kernel layout has today)
 * must keep its mapping beside the direct mapping's, not lose it to it or
 * replace it.
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
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pgd);

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
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pgd);
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

	/* kernel_ident_mapping_init()'s refusal of an offset gets through. */
	pgd = pgtable_test_build(test, offset + SZ_1M, jump, phys, ram,
				 ARRAY_SIZE(ram));
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(pgd), -EINVAL);
}

static struct kunit_case pgtable_test_cases[] = {
	KUNIT_CASE(pgtable_text_mapping_maps_entry_point),
	KUNIT_CASE(pgtable_direct_map_covers_ram),
	KUNIT_CASE(pgtable_maps_this_kernel),
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
