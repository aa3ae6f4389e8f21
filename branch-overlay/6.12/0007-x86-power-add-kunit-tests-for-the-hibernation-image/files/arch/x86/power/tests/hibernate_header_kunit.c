// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the x86 part of the hibernation image header.
 *
 * arch_hibernation_header_save() runs in the image kernel and
 * arch_hibernation_header_restore() in the restore kernel, which may be a
 * different binary.  The tests drive the helpers both use,
 * hibernation_header_encode() and hibernation_header_check(), with records
 * and e820 tables of their own; none of them writes the running kernel's
 * restore globals.  The record's layout is pinned by static_assert()s in
 * hibernate.h.
 */

#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/suspend.h>
#include <asm/e820/api.h>
#include <asm/processor-flags.h>
#include <asm/sections.h>
#include <asm/suspend.h>
#include <asm/tlbflush.h>

#include "../hibernate.h"

/* The paging levels from CR4, independently of the code under test. */
static unsigned long header_test_pgtable_levels(void)
{
	return (__read_cr4() & X86_CR4_LA57) ? 5 : 4;
}

/* RAM below 640K, a reserved range, RAM from 1M to 1G - 128K. */
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

/*
 * The crc32 of the fixture table's nr_entries and three entries, as zlib's
 * crc32() computes it over those 64 bytes: a known answer, not the
 * kernel's crc32_le() again.
 */
static const u32 header_fixture_crc = 0xdefd827e;

static void header_encode_writes_every_field(struct kunit *test)
{
	struct e820_table *table = header_fixture_e820(test);
	const unsigned long cr3 = 0x1a2b3000UL;
	struct restore_data_record rdr;

	memset(&rdr, 0, sizeof(rdr));
	/* The image kernel may run with a PCID in CR3; none may be saved. */
	hibernation_header_encode(&rdr, cr3 | CR3_PCID_MASK, table);

	KUNIT_EXPECT_EQ(test, rdr.jump_address,
			(unsigned long)restore_registers);
	KUNIT_EXPECT_EQ_MSG(test, rdr.jump_address_phys,
			    (unsigned long)__pa_symbol(restore_registers),
			    "jump_address_phys must be the physical address");
	KUNIT_EXPECT_EQ_MSG(test, rdr.cr3, cr3, "PCID bits must be cleared");
	KUNIT_EXPECT_EQ(test, rdr.magic, RESTORE_MAGIC);
	KUNIT_EXPECT_EQ(test, rdr.e820_checksum,
			(unsigned long)header_fixture_crc);
	KUNIT_EXPECT_EQ(test, rdr.pgtable_levels, header_test_pgtable_levels());
}

/* Only reads the running kernel's state; writes only its buffer. */
static void header_save_checks_max_size(struct kunit *test)
{
	const size_t size = sizeof(struct restore_data_record);
	const size_t room = size + 16;
	u8 *buf = kunit_kmalloc(test, room, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, 0xa5, room);
	KUNIT_EXPECT_EQ(test, arch_hibernation_header_save(buf, size - 1),
			-EOVERFLOW);
	KUNIT_EXPECT_PTR_EQ_MSG(test, memchr_inv(buf, 0xa5, room), NULL,
				"a refused save wrote to the buffer");

	KUNIT_EXPECT_EQ(test, arch_hibernation_header_save(buf, size), 0);
	KUNIT_EXPECT_PTR_EQ_MSG(test, memchr_inv(buf + size, 0xa5, room - size),
				NULL, "save wrote past the record");
}

/* A record from this kernel, for this memory map, is accepted. */
static void header_check_accepts_own_record(struct kunit *test)
{
	struct e820_table *table = header_fixture_e820(test);
	struct restore_data_record rdr;

	hibernation_header_encode(&rdr, 0x1a2b3000UL, table);
	KUNIT_EXPECT_EQ(test, hibernation_header_check(&rdr, table), 0);
}

static void header_check_refuses_wrong_magic(struct kunit *test)
{
	struct e820_table *table = header_fixture_e820(test);
	struct restore_data_record rdr;

	hibernation_header_encode(&rdr, 0x1a2b3000UL, table);
	rdr.magic ^= 1;
	KUNIT_EXPECT_EQ(test, hibernation_header_check(&rdr, table), -EINVAL);
}

static void header_check_refuses_other_memory_map(struct kunit *test)
{
	struct e820_table *table = header_fixture_e820(test);
	struct restore_data_record rdr;

	hibernation_header_encode(&rdr, 0x1a2b3000UL, table);
	table->entries[2].size -= SZ_2M;
	KUNIT_EXPECT_EQ(test, hibernation_header_check(&rdr, table), -ENODEV);
}

/*
 * The image kernel's page tables only work in the paging mode they were
 * built for: an image of the other mode must be refused, not jumped into.
 */
static void header_check_refuses_other_paging_levels(struct kunit *test)
{
	struct e820_table *table = header_fixture_e820(test);
	unsigned long levels = header_test_pgtable_levels();
	struct restore_data_record rdr;

	hibernation_header_encode(&rdr, 0x1a2b3000UL, table);
	rdr.pgtable_levels = levels == 5 ? 4 : 5;
	KUNIT_EXPECT_EQ(test, hibernation_header_check(&rdr, table), -EINVAL);
}

/*
 * A record for the fixture memory map as a kernel without pgtable_levels
 * lays it out, its restore_registers at 0xffffffff8b60a000 (physical
 * 0x2a60a000); its checksum is header_fixture_crc.
 */
static const u8 header_fixture_unrecorded[] = {
	0x00, 0xa0, 0x60, 0x8b, 0xff, 0xff, 0xff, 0xff,	/* jump_address */
	0x00, 0xa0, 0x60, 0x2a, 0x00, 0x00, 0x00, 0x00,	/* jump_address_phys */
	0x00, 0x30, 0x2b, 0x1a, 0x00, 0x00, 0x00, 0x00,	/* cr3 */
	0x02, 0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23,	/* magic */
	0x7e, 0x82, 0xfd, 0xde, 0x00, 0x00, 0x00, 0x00,	/* e820_checksum */
};

/* The same record as a 4-level kernel lays it out since pgtable_levels. */
static const u8 header_fixture[] = {
	0x00, 0xa0, 0x60, 0x8b, 0xff, 0xff, 0xff, 0xff,	/* jump_address */
	0x00, 0xa0, 0x60, 0x2a, 0x00, 0x00, 0x00, 0x00,	/* jump_address_phys */
	0x00, 0x30, 0x2b, 0x1a, 0x00, 0x00, 0x00, 0x00,	/* cr3 */
	0x02, 0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23,	/* magic */
	0x7e, 0x82, 0xfd, 0xde, 0x00, 0x00, 0x00, 0x00,	/* e820_checksum */
	0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* pgtable_levels */
};

static_assert(sizeof(header_fixture) == sizeof(struct restore_data_record));

/* The bytes an image kernel writes are read back field by field. */
static void header_check_decodes_fixture(struct kunit *test)
{
	struct e820_table *table = header_fixture_e820(test);
	struct restore_data_record rdr;

	memcpy(&rdr, header_fixture, sizeof(rdr));
	if (header_test_pgtable_levels() == 5) {
		/* A 5-level kernel refuses the 4-level image, */
		KUNIT_EXPECT_EQ(test, hibernation_header_check(&rdr, table),
				-EINVAL);
		/* and takes the same record from a 5-level one. */
		rdr.pgtable_levels = 5;
	}
	KUNIT_EXPECT_EQ(test, hibernation_header_check(&rdr, table), 0);
	KUNIT_EXPECT_EQ(test, rdr.jump_address, 0xffffffff8b60a000UL);
	KUNIT_EXPECT_EQ(test, rdr.jump_address_phys, 0x2a60a000UL);
	KUNIT_EXPECT_EQ(test, rdr.cr3, 0x1a2b3000UL);

	/* The same record against another memory map is refused. */
	table->entries[2].size -= SZ_2M;
	KUNIT_EXPECT_EQ(test, hibernation_header_check(&rdr, table), -ENODEV);
}

/*
 * An image written before the record had pgtable_levels has 0 there (the
 * header page is zeroed first): it is accepted in either paging mode, as
 * it was before.
 */
static void header_check_accepts_unrecorded_levels(struct kunit *test)
{
	struct e820_table *table = header_fixture_e820(test);
	struct restore_data_record rdr;

	memset(&rdr, 0, sizeof(rdr));
	memcpy(&rdr, header_fixture_unrecorded,
	       sizeof(header_fixture_unrecorded));
	KUNIT_EXPECT_EQ(test, hibernation_header_check(&rdr, table), 0);
	KUNIT_EXPECT_EQ(test, rdr.jump_address, 0xffffffff8b60a000UL);
}

static struct kunit_case header_test_cases[] = {
	KUNIT_CASE(header_encode_writes_every_field),
	KUNIT_CASE(header_save_checks_max_size),
	KUNIT_CASE(header_check_accepts_own_record),
	KUNIT_CASE(header_check_refuses_wrong_magic),
	KUNIT_CASE(header_check_refuses_other_memory_map),
	KUNIT_CASE(header_check_refuses_other_paging_levels),
	KUNIT_CASE(header_check_decodes_fixture),
	KUNIT_CASE(header_check_accepts_unrecorded_levels),
	{}
};

static struct kunit_suite header_test_suite = {
	.name = "x86_hibernate_header",
	.test_cases = header_test_cases,
};

kunit_test_suite(header_test_suite);
