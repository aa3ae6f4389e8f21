// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hibernation support for x86-64
 *
 * Copyright (c) 2007 Rafael J. Wysocki <rjw@sisk.pl>
 * Copyright (c) 2002 Pavel Machek <pavel@ucw.cz>
 * Copyright (c) 2001 Patrick Mochel <mochel@osdl.org>
 */

#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/smp.h>
#include <linux/suspend.h>
#include <linux/scatterlist.h>
#include <linux/kdebug.h>
#include <linux/pgtable.h>
#include <kunit/visibility.h>

#include <crypto/hash.h>

#include <asm/e820/api.h>
#include <asm/init.h>
#include <asm/proto.h>
#include <asm/page.h>
#include <asm/mtrr.h>
#include <asm/sections.h>
#include <asm/suspend.h>
#include <asm/tlbflush.h>

#include "hibernate.h"

static int set_up_temporary_text_mapping(pgd_t *pgd,
					 struct x86_mapping_info *info,
					 unsigned long jump,
					 unsigned long jump_phys)
{
	pmd_t *pmd;
	pud_t *pud;
	p4d_t *p4d = NULL;
	pgprot_t pgtable_prot = __pgprot(_KERNPG_TABLE);
	pgprot_t pmd_text_prot = __pgprot(__PAGE_KERNEL_LARGE_EXEC);

	/* Filter out unsupported __PAGE_KERNEL* bits: */
	pgprot_val(pmd_text_prot) &= __default_kernel_pte_mask;
	pgprot_val(pgtable_prot)  &= __default_kernel_pte_mask;

	/*
	 * The new mapping only has to cover the page containing the image
	 * kernel's entry point (jump_phys), because the switch over to
	 * it is carried out by relocated code running from a page allocated
	 * specifically for this purpose and covered by the identity mapping, so
	 * the temporary kernel text mapping is only needed for the final jump.
	 * Moreover, in that mapping the virtual address of the image kernel's
	 * entry point must be the same as its virtual address in the image
	 * kernel (jump), so the image kernel's restore_registers() code
	 * doesn't find itself in a different area of the virtual address space
	 * after switching over to the original page tables used by the image
	 * kernel.
	 */

	if (pgtable_l5_enabled()) {
		p4d = info->alloc_pgt_page(info->context);
		if (!p4d)
			return -ENOMEM;
	}

	pud = info->alloc_pgt_page(info->context);
	if (!pud)
		return -ENOMEM;

	pmd = info->alloc_pgt_page(info->context);
	if (!pmd)
		return -ENOMEM;

	set_pmd(pmd + pmd_index(jump),
		__pmd((jump_phys & PMD_MASK) | pgprot_val(pmd_text_prot)));
	set_pud(pud + pud_index(jump),
		__pud(__pa(pmd) | pgprot_val(pgtable_prot)));
	if (p4d) {
		p4d_t new_p4d = __p4d(__pa(pud) | pgprot_val(pgtable_prot));
		pgd_t new_pgd = __pgd(__pa(p4d) | pgprot_val(pgtable_prot));

		set_p4d(p4d + p4d_index(jump), new_p4d);
		set_pgd(pgd + pgd_index(jump), new_pgd);
	} else {
		/* No p4d for 4-level paging: point the pgd to the pud page table */
		pgd_t new_pgd = __pgd(__pa(pud) | pgprot_val(pgtable_prot));
		set_pgd(pgd + pgd_index(jump), new_pgd);
	}

	return 0;
}

static void *alloc_pgt_page(void *context)
{
	return (void *)get_safe_page(GFP_ATOMIC);
}

/**
 * __set_up_temporary_mappings - build the page tables the restore switches to
 * @alloc: returns a zeroed page for each table, or NULL
 * @context: passed to @alloc
 * @offset: where the direct mapping maps physical address 0
 * @jump: the image kernel's virtual address of restore_registers(), in the
 *	kernel half (with PTI, setting a user-half top-level entry would also
 *	write a user copy through kernel_to_user_pgdp(), which a one-page
 *	table does not provide)
 * @jump_phys: its physical address, equal to @jump modulo 2M
 * @ranges: the RAM to map, as pfn ranges
 * @nr: the number of @ranges
 *
 * Map the 2M page of @jump_phys at @jump, then each of @ranges at @offset,
 * all of it executable: the relocated restore code runs from a page of the
 * direct mapping and jumps through the text mapping.  The text mapping is
 * built first because kernel_ident_mapping_init() adds to a top-level entry
 * that is present, while set_up_temporary_text_mapping() would replace it.
 *
 * Return: the top-level table, or an ERR_PTR(): -ENOMEM if @alloc failed,
 * -EINVAL if kernel_ident_mapping_init() cannot map at @offset.
 */
VISIBLE_IF_KUNIT pgd_t *
__set_up_temporary_mappings(void *(*alloc)(void *), void *context,
			    unsigned long offset, unsigned long jump,
			    unsigned long jump_phys,
			    const struct range *ranges, int nr)
{
	struct x86_mapping_info info = {
		.alloc_pgt_page	= alloc,
		.context	= context,
		.page_flag	= __PAGE_KERNEL_LARGE_EXEC,
		.offset		= offset,
	};
	pgd_t *pgd;
	int result;
	int i;

	pgd = alloc(context);
	if (!pgd)
		return ERR_PTR(-ENOMEM);

	/* Prepare a temporary mapping for the kernel text */
	result = set_up_temporary_text_mapping(pgd, &info, jump, jump_phys);
	if (result)
		return ERR_PTR(result);

	/* Set up the direct mapping from scratch */
	for (i = 0; i < nr; i++) {
		result = kernel_ident_mapping_init(&info, pgd,
						   PFN_PHYS(ranges[i].start),
						   PFN_PHYS(ranges[i].end));
		if (result)
			return ERR_PTR(result);
	}

	return pgd;
}

static int set_up_temporary_mappings(void)
{
	pgd_t *pgd;

	pgd = __set_up_temporary_mappings(alloc_pgt_page, NULL, __PAGE_OFFSET,
					  restore_jump_address,
					  jump_address_phys,
					  pfn_mapped, nr_pfn_mapped);
	if (IS_ERR(pgd))
		return PTR_ERR(pgd);

	temp_pgt = __pa(pgd);
	return 0;
}

asmlinkage int swsusp_arch_resume(void)
{
	int error;

	/* We have got enough memory and from now on we cannot recover */
	error = set_up_temporary_mappings();
	if (error)
		return error;

	error = relocate_restore_code();
	if (error)
		return error;

	restore_image();
	return 0;
}
