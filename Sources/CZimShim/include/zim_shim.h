#ifndef WEBARC_ZIM_SHIM_H
#define WEBARC_ZIM_SHIM_H

// A C interface to the parts of libzim (C++) that ZIM import and export use. Every function
// catches every C++ exception: a failure returns -1 (or NULL) and sets *error to a message the
// caller frees with zs_free. Nothing here throws, aborts or prints.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Frees a string or buffer the shim allocated.
void zs_free(void *pointer);

// MARK: Reading

/// An open ZIM file.
typedef struct zs_archive zs_archive;

/// Opens the ZIM file at `path` (libzim checks its header, pointer lists and mime list).
zs_archive *zs_archive_open(const char *path, char **error);
/// Closes an archive.
void zs_archive_close(zs_archive *archive);

/// The first index and one past the last of the user entries (the `C` namespace; every entry in a
/// ZIM of the old namespace scheme), and the count of all entries.
int zs_archive_ranges(zs_archive *archive, uint32_t *user_begin, uint32_t *user_end, uint32_t *all_count, char **error);
/// 1 when the archive uses the new namespace scheme (libzim 7 and later), 0 when not.
int zs_archive_new_namespace_scheme(zs_archive *archive);
/// The index of the main entry in *index: 1 found, 0 none, -1 error.
int zs_archive_main_entry(zs_archive *archive, uint32_t *index, char **error);
/// Metadata names, each ending in NUL, in *names (zs_free it), *count of them.
int zs_archive_metadata_names(zs_archive *archive, char **names, size_t *length, size_t *count, char **error);

/// One entry as `zs_archive_entry` describes it. Strings are NUL-terminated; free them with
/// zs_entry_clear.
typedef struct {
    char *path;
    char *title;
    /// NULL for a redirect.
    char *mimetype;
    /// 1 for a redirect entry.
    int is_redirect;
    /// For a redirect: the index of the entry it points to.
    uint32_t redirect_index;
    /// For an item: its cluster, and its size in bytes.
    uint32_t cluster;
    uint64_t size;
} zs_entry;

/// What zs_archive_entry reads: the path and kind always; the rest only when asked.
enum {
    ZS_ENTRY_TITLE = 1,
    /// An item's mime type and cluster (from the entry alone).
    ZS_ENTRY_ITEM = 2,
    /// An item's size (libzim reads its cluster's blob offsets for it).
    ZS_ENTRY_SIZE = 4,
};

/// Reads entry `index` (0 to all_count - 1).
int zs_archive_entry(zs_archive *archive, uint32_t index, int what, zs_entry *entry, char **error);
/// Frees an entry's strings.
void zs_entry_clear(zs_entry *entry);

/// Bytes libzim holds (a part of a decompressed cluster, or of the mapped file), valid until released.
typedef struct {
    const void *data;
    uint64_t size;
    void *owner;
} zs_blob;

/// `size` bytes at `offset` of item `index` (fewer at its end).
int zs_archive_item_data(zs_archive *archive, uint32_t index, uint64_t offset, uint64_t size, zs_blob *blob, char **error);
/// The value of metadata `name` when it holds at most `max_size` bytes; 1 found, 0 absent, -1
/// error (a longer value is an error).
int zs_archive_metadata(zs_archive *archive, const char *name, uint64_t max_size, zs_blob *blob, char **error);
/// Releases a blob.
void zs_blob_release(zs_blob *blob);

// MARK: Writing

/// A ZIM being written.
typedef struct zs_creator zs_creator;

/// How a creator writes.
typedef struct {
    /// 0: Zstandard (libzim's default); 1: no compression.
    int uncompressed;
    /// Target bytes of a cluster before compression; 0: libzim's default.
    uint64_t cluster_size;
    /// ISO 639-3 language of the full-text index; NULL: no full-text index.
    const char *index_language;
    /// Compression and indexing threads; 0: libzim's default.
    unsigned workers;
} zs_creator_options;

/// Starts writing a ZIM at `path` (libzim writes `path`.tmp and renames it at the end).
zs_creator *zs_creator_start(const char *path, const zs_creator_options *options, char **error);
/// Sets the path of the main page (a `W/mainPage` redirect).
void zs_creator_set_main_path(zs_creator *creator, const char *path);
/// Adds metadata `name`.
int zs_creator_add_metadata(zs_creator *creator, const char *name, const void *data, size_t size, const char *mimetype, char **error);
/// Adds the PNG illustration of `size` × `size` pixels.
int zs_creator_add_illustration(zs_creator *creator, unsigned size, const void *data, size_t length, char **error);
/// Adds an item; its bytes are copied. `front_article` 1 lists it in the title index and suggestions.
int zs_creator_add_item(
    zs_creator *creator, const char *path, const char *title, const char *mimetype, const void *data, size_t size,
    int front_article, char **error);
/// Adds a redirect from `path` to `target`.
int zs_creator_add_redirect(zs_creator *creator, const char *path, const char *title, const char *target, char **error);
/// Writes the pointer lists, indexes and checksum, and renames the file to its path.
int zs_creator_finish(zs_creator *creator, char **error);
/// Frees a creator; an unfinished ZIM's temporary file is removed.
void zs_creator_free(zs_creator *creator);

#ifdef __cplusplus
}
#endif

#endif
