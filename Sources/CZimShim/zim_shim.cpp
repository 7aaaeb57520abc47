// The C interface of zim_shim.h over libzim's C++ API. Each function body runs inside `guarded`,
// which turns any C++ exception into an error message, so no exception crosses into Swift.

#include "zim_shim.h"

// GNU C++ modes predefine `unix` as 1, which breaks libzim's `zim::unix` namespace.
#undef unix
// Item::getClusterIndex, exported by libzim but declared only for its own tools.
#define ZIM_PRIVATE

#include <zim/archive.h>
#include <zim/entry.h>
#include <zim/error.h>
#include <zim/item.h>
#include <zim/writer/creator.h>
#include <zim/writer/contentProvider.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

struct zs_archive {
    zim::Archive archive;
};

struct zs_creator {
    zim::writer::Creator creator;
};

namespace {

char *copy(const std::string &text) {
    char *result = static_cast<char *>(std::malloc(text.size() + 1));
    if (result) {
        std::memcpy(result, text.data(), text.size());
        result[text.size()] = 0;
    }
    return result;
}

void fail(char **error, const std::string &message) {
    if (error) *error = copy(message.empty() ? std::string("libzim failed without a message") : message);
}

/// Runs `body`, returning `failed` and setting *error for any exception it throws.
template <typename Result, typename Body>
Result guarded(char **error, Result failed, Body body) {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        fail(error, "libzim ran out of memory (an absurd size in the file?)");
    } catch (const std::exception &exception) {
        fail(error, exception.what());
    } catch (...) {
        fail(error, "libzim threw an unknown exception");
    }
    return failed;
}

/// An item whose bytes are copied from the caller.
class CopiedItem : public zim::writer::Item {
  public:
    CopiedItem(std::string path, std::string title, std::string mimetype, std::string content, bool front)
        : path(std::move(path)), title(std::move(title)), mimetype(std::move(mimetype)),
          content(std::make_shared<const std::string>(std::move(content))), front(front) {}

    std::string getPath() const override { return path; }
    std::string getTitle() const override { return title; }
    std::string getMimeType() const override { return mimetype; }
    std::unique_ptr<zim::writer::ContentProvider> getContentProvider() const override {
        return std::unique_ptr<zim::writer::ContentProvider>(new zim::writer::SharedStringProvider(content));
    }
    zim::writer::Hints getHints() const override { return {{zim::writer::FRONT_ARTICLE, front ? 1u : 0u}}; }

  private:
    std::string path, title, mimetype;
    std::shared_ptr<const std::string> content;
    bool front;
};

/// Silences std::cout while it lives: libzim's writer prints progress lines ("Resolve redirect",
/// "set index") to stdout when it finishes, where a command's data goes.
class QuietStandardOutput {
  public:
    QuietStandardOutput() : saved(std::cout.rdbuf(nullptr)) {}
    ~QuietStandardOutput() {
        std::cout.rdbuf(saved);
        std::cout.clear();
    }

  private:
    std::streambuf *saved;
};

}  // namespace

extern "C" {

void zs_free(void *pointer) { std::free(pointer); }

zs_archive *zs_archive_open(const char *path, char **error) {
    return guarded<zs_archive *>(error, nullptr, [&] { return new zs_archive{zim::Archive(std::string(path))}; });
}

void zs_archive_close(zs_archive *archive) { delete archive; }

int zs_archive_ranges(zs_archive *archive, uint32_t *user_begin, uint32_t *user_end, uint32_t *all_count, char **error) {
    return guarded(error, -1, [&] {
        auto range = archive->archive.iterByPath();
        const uint32_t count = static_cast<uint32_t>(range.size());
        *user_begin = count > 0 ? range.begin()->getIndex() : 0;
        *user_end = *user_begin + count;
        *all_count = archive->archive.getAllEntryCount();
        return 0;
    });
}

int zs_archive_new_namespace_scheme(zs_archive *archive) {
    char *ignored = nullptr;
    int result = guarded(&ignored, 0, [&] { return archive->archive.hasNewNamespaceScheme() ? 1 : 0; });
    std::free(ignored);
    return result;
}

int zs_archive_main_entry(zs_archive *archive, uint32_t *index, char **error) {
    return guarded(error, -1, [&] {
        if (!archive->archive.hasMainEntry()) return 0;
        *index = archive->archive.getMainEntry().getIndex();
        return 1;
    });
}

int zs_archive_metadata_names(zs_archive *archive, char **names, size_t *length, size_t *count, char **error) {
    return guarded(error, -1, [&] {
        std::string joined;
        auto keys = archive->archive.getMetadataKeys();
        for (const auto &key : keys) {
            joined += key;
            joined.push_back('\0');
        }
        *names = static_cast<char *>(std::malloc(joined.size() + 1));
        if (!*names) throw std::bad_alloc();
        std::memcpy(*names, joined.data(), joined.size());
        *length = joined.size();
        *count = keys.size();
        return 0;
    });
}

int zs_archive_entry(zs_archive *archive, uint32_t index, int what, zs_entry *entry, char **error) {
    *entry = zs_entry{};
    int result = guarded(error, -1, [&] {
        zim::Entry found = archive->archive.getEntryByPath(index);
        entry->path = copy(found.getPath());
        if (what & ZS_ENTRY_TITLE) entry->title = copy(found.getTitle());
        entry->is_redirect = found.isRedirect() ? 1 : 0;
        if (entry->is_redirect) {
            entry->redirect_index = found.getRedirectEntryIndex();
        } else if (what & (ZS_ENTRY_ITEM | ZS_ENTRY_SIZE)) {
            zim::Item item = found.getItem(false);
            entry->mimetype = copy(item.getMimetype());
            entry->cluster = item.getClusterIndex();
            if (what & ZS_ENTRY_SIZE) entry->size = item.getSize();
        }
        return 0;
    });
    if (result != 0) zs_entry_clear(entry);
    return result;
}

void zs_entry_clear(zs_entry *entry) {
    std::free(entry->path);
    std::free(entry->title);
    std::free(entry->mimetype);
    *entry = zs_entry{};
}

namespace {
void hold(const zim::Blob &found, zs_blob *blob) {
    auto owner = new zim::Blob(found);
    blob->data = owner->data();
    blob->size = owner->size();
    blob->owner = owner;
}
}  // namespace

int zs_archive_item_data(zs_archive *archive, uint32_t index, uint64_t offset, uint64_t size, zs_blob *blob, char **error) {
    *blob = zs_blob{};
    return guarded(error, -1, [&] {
        zim::Item item = archive->archive.getEntryByPath(index).getItem(false);
        hold(item.getData(offset, size), blob);
        return 0;
    });
}

int zs_archive_metadata(zs_archive *archive, const char *name, uint64_t max_size, zs_blob *blob, char **error) {
    *blob = zs_blob{};
    return guarded(error, -1, [&] {
        std::unique_ptr<zim::Item> item;
        try {
            item.reset(new zim::Item(archive->archive.getMetadataItem(name)));
        } catch (const zim::EntryNotFound &) {
            return 0;
        }
        if (item->getSize() > max_size) {
            throw std::runtime_error(
                "metadata " + std::string(name) + " holds " + std::to_string(item->getSize()) + " bytes, more than "
                + std::to_string(max_size));
        }
        hold(item->getData(), blob);
        return 1;
    });
}

void zs_blob_release(zs_blob *blob) {
    delete static_cast<zim::Blob *>(blob->owner);
    *blob = zs_blob{};
}

zs_creator *zs_creator_start(const char *path, const zs_creator_options *options, char **error) {
    return guarded<zs_creator *>(error, nullptr, [&] {
        std::unique_ptr<zs_creator> creator(new zs_creator());
        auto &c = creator->creator;
        c.configCompression(options->uncompressed ? zim::Compression::None : zim::Compression::Zstd);
        if (options->cluster_size) c.configClusterSize(options->cluster_size);
        if (options->index_language) c.configIndexing(true, options->index_language);
        if (options->workers) c.configNbWorkers(options->workers);
        c.startZimCreation(path);
        return creator.release();
    });
}

void zs_creator_set_main_path(zs_creator *creator, const char *path) {
    char *ignored = nullptr;
    guarded(&ignored, 0, [&] {
        creator->creator.setMainPath(path);
        return 0;
    });
    std::free(ignored);
}

int zs_creator_add_metadata(zs_creator *creator, const char *name, const void *data, size_t size, const char *mimetype, char **error) {
    return guarded(error, -1, [&] {
        creator->creator.addMetadata(name, std::string(static_cast<const char *>(data), size), mimetype);
        return 0;
    });
}

int zs_creator_add_illustration(zs_creator *creator, unsigned size, const void *data, size_t length, char **error) {
    return guarded(error, -1, [&] {
        creator->creator.addIllustration(size, std::string(static_cast<const char *>(data), length));
        return 0;
    });
}

int zs_creator_add_item(
    zs_creator *creator, const char *path, const char *title, const char *mimetype, const void *data, size_t size,
    int front_article, char **error) {
    return guarded(error, -1, [&] {
        creator->creator.addItem(std::make_shared<CopiedItem>(
            path, title, mimetype, std::string(static_cast<const char *>(data), size), front_article != 0));
        return 0;
    });
}

int zs_creator_add_redirect(zs_creator *creator, const char *path, const char *title, const char *target, char **error) {
    return guarded(error, -1, [&] {
        creator->creator.addRedirection(path, title, target);
        return 0;
    });
}

int zs_creator_finish(zs_creator *creator, char **error) {
    return guarded(error, -1, [&] {
        QuietStandardOutput quiet;
        creator->creator.finishZimCreation();
        return 0;
    });
}

void zs_creator_free(zs_creator *creator) {
    char *ignored = nullptr;
    guarded(&ignored, 0, [&] {
        delete creator;
        return 0;
    });
    std::free(ignored);
}

}  // extern "C"
