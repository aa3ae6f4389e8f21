// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the x86 part of the hibernation image header.
 *
 * arch_hibernation_header_save() runs in the image kernel and
 * arch_hibernation_header_restore() in the restore kernel, which may be a
 * different binary.  struct restore_data_record is therefore an ABI, and
 * the tests pin its layout together with RESTORE_MAGIC.  Every global the
 * tests touch is saved in init and put back in exit.
 */

#include <kunit/test.h>
#include <linux/crc32.h>
#include <linux/string.h>
#include <linux/suspend.h>
#include <asm/e820/api.h>
#include <asm/processor-flags.h>
#include <asm/sections.h>
#include <asm/suspend.h>
#include <asm/tlbflush.h>

#include "hibernate.h"
#include "../../../kernel/power/power.h"

static_assert(sizeof(struct restore_data_record) <= MAX_ARCH_HEADER_SIZE,
	      "the record must fit the core's arch header area");

struct header_test_state {
	unsigned long restore_jump_address;
	unsigned long jump_address_phys;
	unsigned long restore_cr3;
	struct e820_table *e820_table_firmware;
};

static int header_test_init(struct kunit *test)
{
	struct header_test_state *saved;

	saved = kunit_kzalloc(test, sizeof(*saved), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, saved);
	saved->restore_jump_address = restore_jump_address;
	saved->jump_address_phys = jump_address_phys;
	saved->restore_cr3 = restore_cr3;
	saved->e820_table_firmware = e820_table_firmware;
	test->priv = saved;
	return 0;
}

static void header_test_exit(struct kunit *test)
{
	struct header_test_state *saved = test->priv;

	if (!saved)
		return;
	restore_jump_address = saved->restore_jump_address;
	jump_address_phys = saved->jump_address_phys;
	restore_cr3 = saved->restore_cr3;
	e820_table_firmware = saved->e820_table_firmware;
}

/* Distinct values, so a test can tell whether restore changed a global. */
static void header_test_poison_globals(void)
{
	restore_jump_address = 0x5a5a0001UL;
	jump_address_phys = 0x5a5a0002UL;
	restore_cr3 = 0x5a5a0003UL;
}

static void header_test_expect_poison(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, restore_jump_address, 0x5a5a0001UL);
	KUNIT_EXPECT_EQ(test, jump_address_phys, 0x5a5a0002UL);
	KUNIT_EXPECT_EQ(test, restore_cr3, 0x5a5a0003UL);
}

/* The paging levels from CR4, independently of the code under test. */
static unsigned long header_test_pgtable_levels(void)
{
	return (__read_cr4() & X86_CR4_LA57) ? 5 : 4;
}

/* The checksum computed here, independently of compute_e820_crc32(). */
static u32 header_test_e820_crc(const struct e820_table *table)
{
	size_t size = offsetof(struct e820_table, entries) +
		      sizeof(struct e820_entry) * table->nr_entries;

	return ~crc32_le(~0, (const u8 *)table, size);
}

static void header_save_writes_every_field(struct kunit *test)
{
	unsigned long cr3 = __read_cr3() & ~CR3_PCID_MASK;
	struct restore_data_record rdr;

	/* The image kernel may run with a PCID in CR3; none may be saved. */
	restore_cr3 = cr3 | CR3_PCID_MASK;
	memset(&rdr, 0, sizeof(rdr));
	KUNIT_ASSERT_EQ(test, arch_hibernation_header_save(&rdr, sizeof(rdr)), 0);

	KUNIT_EXPECT_EQ(test, rdr.jump_address,
			(unsigned long)restore_registers);
	KUNIT_EXPECT_EQ_MSG(test, rdr.jump_address_phys,
			    (unsigned long)__pa_symbol(restore_registers),
			    "jump_address_phys must be the physical address");
	KUNIT_EXPECT_NE(test, rdr.jump_address_phys, rdr.jump_address);
	KUNIT_EXPECT_EQ_MSG(test, rdr.cr3, cr3, "PCID bits must be cleared");
	KUNIT_EXPECT_EQ(test, rdr.cr3 & CR3_PCID_MASK, 0UL);
	KUNIT_EXPECT_EQ(test, rdr.magic, RESTORE_MAGIC);
	KUNIT_EXPECT_EQ(test, rdr.e820_checksum,
			(unsigned long)header_test_e820_crc(e820_table_firmware));
	KUNIT_EXPECT_EQ(test, rdr.pgtable_levels, header_test_pgtable_levels());
}

static void header_save_checks_max_size(struct kunit *test)
{
	const size_t size = sizeof(struct restore_data_record);
	u8 *buf = kunit_kmalloc(test, MAX_ARCH_HEADER_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, 0xa5, MAX_ARCH_HEADER_SIZE);
	KUNIT_EXPECT_EQ(test, arch_hibernation_header_save(buf, size - 1),
			-EOVERFLOW);
	KUNIT_EXPECT_PTR_EQ_MSG(test, memchr_inv(buf, 0xa5, MAX_ARCH_HEADER_SIZE),
				NULL, "a refused save wrote to the buffer");

	KUNIT_EXPECT_EQ(test, arch_hibernation_header_save(buf, size), 0);
	KUNIT_EXPECT_PTR_EQ_MSG(test, memchr_inv(buf + size, 0xa5,
						 MAX_ARCH_HEADER_SIZE - size),
				NULL, "save wrote past the record");
	/* What the core passes, from kernel/power/power.h. */
	KUNIT_EXPECT_EQ(test,
			arch_hibernation_header_save(buf, MAX_ARCH_HEADER_SIZE),
			0);
}

static void header_round_trip(struct kunit *test)
{
	struct restore_data_record rdr;

	restore_cr3 = __read_cr3();
	KUNIT_ASSERT_EQ(test, arch_hibernation_header_save(&rdr, sizeof(rdr)), 0);
	header_test_poison_globals();
	KUNIT_ASSERT_EQ(test, arch_hibernation_header_restore(&rdr), 0);
	KUNIT_EXPECT_EQ(test, restore_jump_address, rdr.jump_address);
	KUNIT_EXPECT_EQ(test, jump_address_phys, rdr.jump_address_phys);
	KUNIT_EXPECT_EQ(test, restore_cr3, rdr.cr3);
}

static void header_restore_refuses_wrong_magic(struct kunit *test)
{
	struct restore_data_record rdr;

	KUNIT_ASSERT_EQ(test, arch_hibernation_header_save(&rdr, sizeof(rdr)), 0);
	rdr.magic ^= 1;
	header_test_poison_globals();
	KUNIT_EXPECT_EQ(test, arch_hibernation_header_restore(&rdr), -EINVAL);
	header_test_expect_poison(test);
}

static void header_restore_refuses_other_memory_map(struct kunit *test)
{
	struct restore_data_record rdr;

	KUNIT_ASSERT_EQ(test, arch_hibernation_header_save(&rdr, sizeof(rdr)), 0);
	rdr.e820_checksum ^= 1;
	header_test_poison_globals();
	KUNIT_EXPECT_EQ(test, arch_hibernation_header_restore(&rdr), -ENODEV);
	/* A refused header leaves the restore state alone. */
	header_test_expect_poison(test);
}

/*
 * The layout as the restore kernel reads it.  If this fails, the record
 * changed: give it a new RESTORE_MAGIC, then update this table.
 */
static const struct {
	const char *field;
	size_t offset;
} header_layout[] = {
	{ "jump_address", offsetof(struct restore_data_record, jump_address) },
	{ "jump_address_phys",
	  offsetof(struct restore_data_record, jump_address_phys) },
	{ "cr3", offsetof(struct restore_data_record, cr3) },
	{ "magic", offsetof(struct restore_data_record, magic) },
	{ "e820_checksum", offsetof(struct restore_data_record, e820_checksum) },
	{ "pgtable_levels",
	  offsetof(struct restore_data_record, pgtable_levels) },
};

static const size_t header_layout_pinned[] = { 0, 8, 16, 24, 32, 40 };

/*
 * The image kernel's page tables only work in the paging mode they were
 * built for: an image of the other mode must be refused, not jumped into.
 */
static void header_restore_refuses_other_paging_levels(struct kunit *test)
{
	unsigned long levels = header_test_pgtable_levels();
	struct restore_data_record rdr;

	KUNIT_ASSERT_EQ(test, arch_hibernation_header_save(&rdr, sizeof(rdr)), 0);
	rdr.pgtable_levels = levels == 5 ? 4 : 5;
	header_test_poison_globals();
	KUNIT_EXPECT_EQ(test, arch_hibernation_header_restore(&rdr), -EINVAL);
	header_test_expect_poison(test);

	rdr.pgtable_levels = 0;
	KUNIT_EXPECT_EQ(test, arch_hibernation_header_restore(&rdr), -EINVAL);
	header_test_expect_poison(test);
}

static void header_layout_is_pinned_to_magic(struct kunit *test)
{
	int i;

	KUNIT_EXPECT_EQ_MSG(test, RESTORE_MAGIC, 0x23456789ABCDEF03UL,
			    "RESTORE_MAGIC changed: update the pinned layout");
	KUNIT_EXPECT_EQ_MSG(test, sizeof(struct restore_data_record), (size_t)48,
			    "struct restore_data_record changed size without a new RESTORE_MAGIC");
	for (i = 0; i < ARRAY_SIZE(header_layout); i++)
		KUNIT_EXPECT_EQ_MSG(test, header_layout[i].offset,
				    header_layout_pinned[i],
				    "%s moved without a new RESTORE_MAGIC",
				    header_layout[i].field);
}

/*
 * A record for a memory map of three entries, as a 6.12 image kernel whose
 * restore_registers sat at 0xffffffff8b60a000 (physical 0x2a60a000) wrote
 * it; the checksum is the zlib crc32 of the fixture table below.
 */
static const u8 header_fixture_612[] = {
	0x00, 0xa0, 0x60, 0x8b, 0xff, 0xff, 0xff, 0xff,	/* jump_address */
	0x00, 0xa0, 0x60, 0x2a, 0x00, 0x00, 0x00, 0x00,	/* jump_address_phys */
	0x00, 0x30, 0x2b, 0x1a, 0x00, 0x00, 0x00, 0x00,	/* cr3 */
	0x02, 0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23,	/* magic */
	0x7e, 0x82, 0xfd, 0xde, 0x00, 0x00, 0x00, 0x00,	/* e820_checksum */
};

/* The same record as a 4-level kernel writes it since pgtable_levels. */
static const u8 header_fixture[] = {
	0x00, 0xa0, 0x60, 0x8b, 0xff, 0xff, 0xff, 0xff,	/* jump_address */
	0x00, 0xa0, 0x60, 0x2a, 0x00, 0x00, 0x00, 0x00,	/* jump_address_phys */
	0x00, 0x30, 0x2b, 0x1a, 0x00, 0x00, 0x00, 0x00,	/* cr3 */
	0x03, 0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23,	/* magic */
	0x7e, 0x82, 0xfd, 0xde, 0x00, 0x00, 0x00, 0x00,	/* e820_checksum */
	0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* pgtable_levels */
};

static const u32 header_fixture_crc = 0xdefd827e;

static struct e820_table *header_fixture_e820(struct kunit *test)
{
	struct e820_table *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->nr_entries = 3;
	t->entries[0] = (struct e820_entry){ 0x0, 0x9fc00, E820_TYPE_RAM };
	t->entries[1] = (struct e820_entry){ 0xf0000, 0x10000,
					     E820_TYPE_RESERVED };
	t->entries[2] = (struct e820_entry){ 0x100000, 0x3fee0000,
					     E820_TYPE_RAM };
	return t;
}

static void header_restore_decodes_fixture(struct kunit *test)
{
	struct restore_data_record rdr;

	/* Runtime, not BUILD_BUG_ON: a layout change must fail with a message. */
	KUNIT_ASSERT_EQ_MSG(test, sizeof(rdr), sizeof(header_fixture),
			    "struct restore_data_record no longer matches the fixture: new RESTORE_MAGIC?");
	e820_table_firmware = header_fixture_e820(test);
	KUNIT_ASSERT_EQ(test, compute_e820_crc32(e820_table_firmware),
			header_fixture_crc);

	memcpy(&rdr, header_fixture, sizeof(rdr));
	header_test_poison_globals();
	if (header_test_pgtable_levels() == 5) {
		/* A 5-level kernel refuses the 4-level image, */
		KUNIT_EXPECT_EQ(test, arch_hibernation_header_restore(&rdr),
				-EINVAL);
		header_test_expect_poison(test);
		/* and takes the same record from a 5-level one. */
		rdr.pgtable_levels = 5;
	}
	KUNIT_ASSERT_EQ(test, arch_hibernation_header_restore(&rdr), 0);
	KUNIT_EXPECT_EQ(test, restore_jump_address, 0xffffffff8b60a000UL);
	KUNIT_EXPECT_EQ(test, jump_address_phys, 0x2a60a000UL);
	KUNIT_EXPECT_EQ(test, restore_cr3, 0x1a2b3000UL);

	/* The same record against another memory map is refused. */
	e820_table_firmware->entries[2].size -= SZ_2M;
	header_test_poison_globals();
	KUNIT_EXPECT_EQ(test, arch_hibernation_header_restore(&rdr), -ENODEV);
	header_test_expect_poison(test);
}

/*
 * An image written before the record had pgtable_levels carries no paging
 * mode: it is refused on its magic, before any field is used.
 */
static void header_restore_refuses_612_record(struct kunit *test)
{
	struct restore_data_record rdr;

	memset(&rdr, 0, sizeof(rdr));
	memcpy(&rdr, header_fixture_612, sizeof(header_fixture_612));
	e820_table_firmware = header_fixture_e820(test);
	header_test_poison_globals();
	KUNIT_EXPECT_EQ(test, arch_hibernation_header_restore(&rdr), -EINVAL);
	header_test_expect_poison(test);
}

static struct kunit_case header_test_cases[] = {
	KUNIT_CASE(header_save_writes_every_field),
	KUNIT_CASE(header_save_checks_max_size),
	KUNIT_CASE(header_round_trip),
	KUNIT_CASE(header_restore_refuses_wrong_magic),
	KUNIT_CASE(header_restore_refuses_other_memory_map),
	KUNIT_CASE(header_restore_refuses_other_paging_levels),
	KUNIT_CASE(header_layout_is_pinned_to_magic),
	KUNIT_CASE(header_restore_decodes_fixture),
	KUNIT_CASE(header_restore_refuses_612_record),
	{}
};

static struct kunit_suite header_test_suite = {
	.name = "x86_hibernate_header",
	.init = header_test_init,
	.exit = header_test_exit,
	.test_cases = header_test_cases,
};

kunit_test_suite(header_test_suite);
