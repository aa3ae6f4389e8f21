/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The x86 part of the hibernation image header.
 *
 * The image kernel writes this record and the restore kernel, which need
 * not be the same binary, reads it back: it is an ABI between two kernels.
 * Change RESTORE_MAGIC whenever the layout of the record changes.
 */
#ifndef _ARCH_X86_POWER_HIBERNATE_H
#define _ARCH_X86_POWER_HIBERNATE_H

#include <linux/types.h>
#include <asm/e820/types.h>

struct restore_data_record {
	unsigned long jump_address;
	unsigned long jump_address_phys;
	unsigned long cr3;
	unsigned long magic;
	unsigned long e820_checksum;
	unsigned long pgtable_levels;
};

#ifdef CONFIG_X86_64
#define RESTORE_MAGIC	0x23456789ABCDEF03UL
#else
#define RESTORE_MAGIC	0x1234567AUL
#endif

#if IS_ENABLED(CONFIG_KUNIT)
u32 compute_e820_crc32(struct e820_table *table);
#endif

#endif /* _ARCH_X86_POWER_HIBERNATE_H */
