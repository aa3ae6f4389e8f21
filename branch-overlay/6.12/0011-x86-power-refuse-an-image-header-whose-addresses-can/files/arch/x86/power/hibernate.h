/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The x86 part of the hibernation image header, and the helpers that the
 * KUnit suites call: the header's encoder and check, and the builder of
 * the restore's temporary page tables.
 *
 * The image kernel writes this record and the restore kernel, which need
 * not be the same binary, reads it back: it is an ABI between two kernels.
 * Change RESTORE_MAGIC whenever the layout of the record changes, except
 * for a field appended at the end for which 0 keeps the old meaning.
 */
#ifndef _ARCH_X86_POWER_HIBERNATE_H
#define _ARCH_X86_POWER_HIBERNATE_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <asm/e820/types.h>
#include <asm/pgtable_types.h>

struct restore_data_record {
	unsigned long jump_address;
	unsigned long jump_address_phys;
	unsigned long cr3;
	unsigned long magic;
	unsigned long e820_checksum;
	/*
	 * Added without a new RESTORE_MAGIC: the header page is zeroed
	 * before the record is written, so an image of a kernel that
	 * predates this field has 0 here, and such a kernel ignores it.
	 */
	unsigned long pgtable_levels;
};

#ifdef CONFIG_X86_64
#define RESTORE_MAGIC	0x23456789ABCDEF02UL
#else
#define RESTORE_MAGIC	0x12345679UL
#endif

#ifdef CONFIG_X86_64
/*
 * The record as this kernel writes it; an older kernel's, with the same
 * RESTORE_MAGIC, ends before pgtable_levels.  If the build fails here, the
 * record changed: give it a new RESTORE_MAGIC (or see above), then update
 * these together.
 */
static_assert(offsetof(struct restore_data_record, jump_address) == 0);
static_assert(offsetof(struct restore_data_record, jump_address_phys) == 8);
static_assert(offsetof(struct restore_data_record, cr3) == 16);
static_assert(offsetof(struct restore_data_record, magic) == 24);
static_assert(offsetof(struct restore_data_record, e820_checksum) == 32);
static_assert(offsetof(struct restore_data_record, pgtable_levels) == 40);
static_assert(sizeof(struct restore_data_record) == 48);
#endif

#if IS_ENABLED(CONFIG_KUNIT) && IS_ENABLED(CONFIG_X86_64)
struct range;

pgd_t *__set_up_temporary_mappings(void *(*alloc)(void *), void *context,
				   unsigned long offset, unsigned long jump,
				   unsigned long jump_phys,
				   const struct range *ranges, int nr);
#endif

#if IS_ENABLED(CONFIG_KUNIT)
void hibernation_header_encode(struct restore_data_record *rdr,
			       unsigned long cr3, struct e820_table *table);
int hibernation_header_check(const struct restore_data_record *rdr,
			     struct e820_table *table,
			     unsigned long end_pfn);
#endif

#endif /* _ARCH_X86_POWER_HIBERNATE_H */
