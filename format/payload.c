// SPDX-License-Identifier: MIT
/*
 * format/payload.c - the payload encodings of FORMAT.md §5: a bounds-checked
 * cursor, key/values, EVENT_ATTR, BUILDID and COUNTS entries, FILE parts.
 *
 * Decoders return pointers into the payload (no copies) and enforce every
 * cap of §7 before using a length.  The *_next() functions return 1 with an
 * entry, 0 at the end of the payload, or a negative -AMB_E_*; on error the
 * cursor does not move.
 */
#include <amber/format.h>

#include <errno.h>
#include <string.h>

#include <amber/common.h>

#define AMB_KEY_MAX        4096u
#define AMB_ATTR_MAX       512u
#define AMB_EVENT_NAME_MAX 1024u
#define AMB_BUILD_ID_MAX   64u
#define AMB_PATH_MAX       4096u
#define AMB_COUNT_ENTRY    44u  /* §5.4: entry_len >= 44 */

int amb_cursor_bytes(struct amb_cursor *c, size_t n, const uint8_t **p)
{
	if (n > amb_cursor_left(c))
		return -AMB_E_TRUNCATED;
	if (p)
		*p = c->p + c->pos;
	c->pos += n;
	return 0;
}

int amb_cursor_u8(struct amb_cursor *c, uint8_t *v)
{
	const uint8_t *p;
	int err = amb_cursor_bytes(c, 1, &p);

	if (!err)
		*v = *p;
	return err;
}

int amb_cursor_u16(struct amb_cursor *c, uint16_t *v)
{
	const uint8_t *p;
	int err = amb_cursor_bytes(c, 2, &p);

	if (!err)
		*v = amb_get_le16(p);
	return err;
}

int amb_cursor_u32(struct amb_cursor *c, uint32_t *v)
{
	const uint8_t *p;
	int err = amb_cursor_bytes(c, 4, &p);

	if (!err)
		*v = amb_get_le32(p);
	return err;
}

int amb_cursor_u64(struct amb_cursor *c, uint64_t *v)
{
	const uint8_t *p;
	int err = amb_cursor_bytes(c, 8, &p);

	if (!err)
		*v = amb_get_le64(p);
	return err;
}

/* Cut the next length-prefixed entry (u32 entry_len, then entry_len bytes)
 * out of @c into @sub; @c moves past it only on success (see file comment). */
static int entry_begin(struct amb_cursor *c, struct amb_cursor *sub)
{
	struct amb_cursor t = *c;
	const uint8_t *p;
	uint32_t elen;
	int err;

	err = amb_cursor_u32(&t, &elen);
	if (!err)
		err = amb_cursor_bytes(&t, elen, &p);
	if (err)
		return err;
	amb_cursor_init(sub, p, elen);
	*c = t;
	return 0;
}

/* Restore @c to @saved and pass @err on: a failed decode does not move. */
static int fail_at(struct amb_cursor *c, size_t saved, int err)
{
	c->pos = saved;
	return err;
}

/* ---- key/values, §5.1 ----------------------------------------------------- */

int amb_kv_put(struct amb_buf *b, const char *key, const void *val, size_t len)
{
	size_t klen = strlen(key), old = b->len;
	int err;

	if (klen > AMB_KEY_MAX || len > UINT32_MAX)
		return -E2BIG;
	err = amb_buf_reserve(b, 8 + klen + len);
	if (!err)
		err = amb_buf_put_le32(b, (uint32_t)klen);
	if (!err)
		err = amb_buf_append(b, key, klen);
	if (!err)
		err = amb_buf_put_le32(b, (uint32_t)len);
	if (!err)
		err = amb_buf_append(b, val, len);
	if (err)
		b->len = old;
	return err;
}

int amb_kv_put_str(struct amb_buf *b, const char *key, const char *val)
{
	return amb_kv_put(b, key, val, strlen(val));
}

int amb_kv_next(struct amb_cursor *c, struct amb_kv *kv)
{
	size_t saved = c->pos;
	const uint8_t *k, *v;
	uint32_t klen, vlen;
	int err;

	if (amb_cursor_left(c) == 0)
		return 0;
	err = amb_cursor_u32(c, &klen);
	if (err)
		return fail_at(c, saved, err);
	if (klen > AMB_KEY_MAX)
		return fail_at(c, saved, -AMB_E_TOO_BIG);
	err = amb_cursor_bytes(c, klen, &k);
	if (!err)
		err = amb_cursor_u32(c, &vlen);
	if (!err)
		err = amb_cursor_bytes(c, vlen, &v);
	if (err)
		return fail_at(c, saved, err);
	if (memchr(k, 0, klen))
		return fail_at(c, saved, -AMB_E_CORRUPT);
	kv->key = (const char *)k;
	kv->key_len = klen;
	kv->val = v;
	kv->val_len = vlen;
	return 1;
}

/* ---- EVENT_ATTR entries, §5.2 ---------------------------------------------- */

int amb_event_put(struct amb_buf *b, const struct amb_event_entry *e)
{
	size_t old = b->len, body;
	int err;

	if (e->attr_size > AMB_ATTR_MAX || e->name_len > AMB_EVENT_NAME_MAX ||
	    e->nr_ids > (UINT32_MAX - 16 - AMB_ATTR_MAX - AMB_EVENT_NAME_MAX) / 8)
		return -E2BIG;
	body = 4 + (size_t)e->attr_size + 4 + e->name_len + 4 + 4 + 4 + 8 * (size_t)e->nr_ids;
	err = amb_buf_reserve(b, 4 + body);
	if (!err)
		err = amb_buf_put_le32(b, (uint32_t)body);
	if (!err)
		err = amb_buf_put_le32(b, e->attr_size);
	if (!err)
		err = amb_buf_append(b, e->attr, e->attr_size);
	if (!err)
		err = amb_buf_put_le32(b, e->name_len);
	if (!err)
		err = amb_buf_append(b, e->name, e->name_len);
	if (!err)
		err = amb_buf_put_le32(b, e->leader);
	if (!err)
		err = amb_buf_put_le32(b, e->flags);
	if (!err)
		err = amb_buf_put_le32(b, e->nr_ids);
	if (!err)
		err = amb_buf_append(b, e->ids, 8 * (size_t)e->nr_ids);
	if (err)
		b->len = old;
	return err;
}

int amb_event_next(struct amb_cursor *c, struct amb_event_entry *e)
{
	size_t saved = c->pos;
	struct amb_cursor s;
	const uint8_t *name;
	int err;

	if (amb_cursor_left(c) == 0)
		return 0;
	err = entry_begin(c, &s);
	if (err)
		return fail_at(c, saved, err);
	err = amb_cursor_u32(&s, &e->attr_size);
	if (err)
		return fail_at(c, saved, err);
	if (e->attr_size > AMB_ATTR_MAX)
		return fail_at(c, saved, -AMB_E_TOO_BIG);
	err = amb_cursor_bytes(&s, e->attr_size, &e->attr);
	if (!err)
		err = amb_cursor_u32(&s, &e->name_len);
	if (err)
		return fail_at(c, saved, err);
	if (e->name_len > AMB_EVENT_NAME_MAX)
		return fail_at(c, saved, -AMB_E_TOO_BIG);
	err = amb_cursor_bytes(&s, e->name_len, &name);
	if (!err)
		err = amb_cursor_u32(&s, &e->leader);
	if (!err)
		err = amb_cursor_u32(&s, &e->flags);
	if (!err)
		err = amb_cursor_u32(&s, &e->nr_ids);
	if (err)
		return fail_at(c, saved, err);
	if (e->nr_ids > amb_cursor_left(&s) / 8)
		return fail_at(c, saved, -AMB_E_TRUNCATED);
	err = amb_cursor_bytes(&s, 8 * (size_t)e->nr_ids, &e->ids);
	if (err)
		return fail_at(c, saved, err);
	e->name = (const char *)name;
	/* Bytes left in the entry belong to fields of a later minor (§8). */
	return 1;
}

/* ---- BUILDID entries, §5.3 ------------------------------------------------- */

int amb_buildid_put(struct amb_buf *b, const struct amb_buildid_entry *e)
{
	size_t old = b->len, body;
	uint8_t fixed[4] = { e->build_id_len, e->kind, 0, 0 };
	int err;

	if (e->build_id_len > AMB_BUILD_ID_MAX || e->path_len > AMB_PATH_MAX)
		return -E2BIG;
	body = 4 + (size_t)e->build_id_len + 4 + e->path_len;
	err = amb_buf_reserve(b, 4 + body);
	if (!err)
		err = amb_buf_put_le32(b, (uint32_t)body);
	if (!err)
		err = amb_buf_append(b, fixed, sizeof(fixed));
	if (!err)
		err = amb_buf_append(b, e->build_id, e->build_id_len);
	if (!err)
		err = amb_buf_put_le32(b, e->path_len);
	if (!err)
		err = amb_buf_append(b, e->path, e->path_len);
	if (err)
		b->len = old;
	return err;
}

int amb_buildid_next(struct amb_cursor *c, struct amb_buildid_entry *e)
{
	size_t saved = c->pos;
	const uint8_t *path;
	struct amb_cursor s;
	uint16_t reserved;
	int err;

	if (amb_cursor_left(c) == 0)
		return 0;
	err = entry_begin(c, &s);
	if (!err)
		err = amb_cursor_u8(&s, &e->build_id_len);
	if (!err)
		err = amb_cursor_u8(&s, &e->kind);
	if (!err)
		err = amb_cursor_u16(&s, &reserved);
	if (err)
		return fail_at(c, saved, err);
	if (reserved)
		return fail_at(c, saved, -AMB_E_RESERVED);
	if (e->build_id_len > AMB_BUILD_ID_MAX)
		return fail_at(c, saved, -AMB_E_TOO_BIG);
	err = amb_cursor_bytes(&s, e->build_id_len, &e->build_id);
	if (!err)
		err = amb_cursor_u32(&s, &e->path_len);
	if (err)
		return fail_at(c, saved, err);
	if (e->path_len > AMB_PATH_MAX)
		return fail_at(c, saved, -AMB_E_TOO_BIG);
	err = amb_cursor_bytes(&s, e->path_len, &path);
	if (err)
		return fail_at(c, saved, err);
	e->path = (const char *)path;
	return 1;
}

/* ---- COUNTS entries, §5.4 -------------------------------------------------- */

int amb_count_put(struct amb_buf *b, const struct amb_count_entry *e)
{
	uint8_t t[4 + AMB_COUNT_ENTRY];

	amb_put_le32(t, AMB_COUNT_ENTRY);
	amb_put_le32(t + 4, e->event);
	amb_put_le32(t + 8, e->cpu);
	amb_put_le32(t + 12, e->tid);
	amb_put_le64(t + 16, e->id);
	amb_put_le64(t + 24, e->value);
	amb_put_le64(t + 32, e->time_enabled);
	amb_put_le64(t + 40, e->time_running);
	return amb_buf_append(b, t, sizeof(t));
}

int amb_count_next(struct amb_cursor *c, struct amb_count_entry *e)
{
	size_t saved = c->pos;
	struct amb_cursor s;
	const uint8_t *p;
	int err;

	if (amb_cursor_left(c) == 0)
		return 0;
	err = entry_begin(c, &s);
	if (err)
		return fail_at(c, saved, err);
	err = amb_cursor_bytes(&s, AMB_COUNT_ENTRY, &p);
	if (err)
		return fail_at(c, saved, err);
	e->event = amb_get_le32(p);
	e->cpu = amb_get_le32(p + 4);
	e->tid = amb_get_le32(p + 8);
	e->id = amb_get_le64(p + 12);
	e->value = amb_get_le64(p + 20);
	e->time_enabled = amb_get_le64(p + 28);
	e->time_running = amb_get_le64(p + 36);
	return 1;
}

/* ---- FILE payload, §5.5 ---------------------------------------------------- */

int amb_file_put_header(struct amb_buf *b, const struct amb_file_entry *e)
{
	uint8_t fixed[4] = { e->build_id_len, e->kind, 0, 0 };
	size_t old = b->len, hdr;
	int err;

	if (e->build_id_len > AMB_BUILD_ID_MAX || e->name_len > AMB_PATH_MAX)
		return -E2BIG;
	if (e->part_offset > e->file_size || e->data_len > e->file_size - e->part_offset)
		return -EINVAL;
	hdr = 4 + (size_t)e->build_id_len + 4 + e->name_len + 8 + 8;
	err = amb_buf_reserve(b, 4 + hdr);
	if (!err)
		err = amb_buf_put_le32(b, (uint32_t)hdr);
	if (!err)
		err = amb_buf_append(b, fixed, sizeof(fixed));
	if (!err)
		err = amb_buf_append(b, e->build_id, e->build_id_len);
	if (!err)
		err = amb_buf_put_le32(b, e->name_len);
	if (!err)
		err = amb_buf_append(b, e->name, e->name_len);
	if (!err)
		err = amb_buf_put_le64(b, e->file_size);
	if (!err)
		err = amb_buf_put_le64(b, e->part_offset);
	if (err)
		b->len = old;
	return err;
}

int amb_file_parse(const void *payload, size_t len, struct amb_file_entry *e)
{
	struct amb_cursor c, s;
	const uint8_t *name;
	uint16_t reserved;
	int err;

	amb_cursor_init(&c, payload, len);
	err = entry_begin(&c, &s);
	if (!err)
		err = amb_cursor_u8(&s, &e->build_id_len);
	if (!err)
		err = amb_cursor_u8(&s, &e->kind);
	if (!err)
		err = amb_cursor_u16(&s, &reserved);
	if (err)
		return err;
	if (reserved)
		return -AMB_E_RESERVED;
	if (e->build_id_len > AMB_BUILD_ID_MAX)
		return -AMB_E_TOO_BIG;
	err = amb_cursor_bytes(&s, e->build_id_len, &e->build_id);
	if (!err)
		err = amb_cursor_u32(&s, &e->name_len);
	if (err)
		return err;
	if (e->name_len > AMB_PATH_MAX)
		return -AMB_E_TOO_BIG;
	err = amb_cursor_bytes(&s, e->name_len, &name);
	if (!err)
		err = amb_cursor_u64(&s, &e->file_size);
	if (!err)
		err = amb_cursor_u64(&s, &e->part_offset);
	if (err)
		return err;
	e->name = (const char *)name;
	e->data = c.p + c.pos;
	e->data_len = amb_cursor_left(&c);
	/* §5.5: part_offset + data_len <= file_size, without overflowing. */
	if (e->part_offset > e->file_size || e->data_len > e->file_size - e->part_offset)
		return -AMB_E_CORRUPT;
	return 0;
}
