#include "sim/output_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <streambuf>
#include <vector>

namespace ipusim {
namespace {

/// A write-only stream buffer over a file descriptor that remembers the first errno, so
/// that a failed write() (disk full) is reported with its reason rather than as a vague
/// stream state. iostreams over std::filebuf cannot fsync and lose errno.
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd), buffer_(1 << 16) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  /// errno of the first failed write (0 if none).
  int error() const { return error_; }
  /// Writes out what is buffered; false (and error() set) on failure.
  bool drain() { return sync() == 0; }

 protected:
  int_type overflow(int_type ch) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }

  int sync() override {
    const char* p = pbase();
    std::size_t left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        break;
      }
      if (n == 0) {
        error_ = EIO;  // write() made no progress: treat as an I/O error, never loop
        break;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return error_ == 0 ? 0 : -1;
  }

 private:
  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

std::atomic<unsigned> temp_counter{0};

}  // namespace

std::string try_write_file_atomic(const std::string& path,
                                  const std::function<void(std::ostream&)>& produce) {
  namespace fs = std::filesystem;
  const fs::path final_path(path);
  const std::string temp = (final_path.parent_path() /
                            ("." + final_path.filename().string() + ".tmp." +
                             std::to_string(::getpid()) + "." + std::to_string(temp_counter++)))
                               .string();
  // 0666 filtered by the umask: the same permissions an ofstream would have given.
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return "cannot write '" + path + "': " + std::strerror(errno);

  auto fail = [&](int err, const std::string& what) {
    ::close(fd);
    ::unlink(temp.c_str());
    return "cannot write '" + path + "': " + what +
           (err ? std::string(": ") + std::strerror(err) : "");
  };

  FdBuf buf(fd);
  {
    std::ostream out(&buf);
    try {
      produce(out);
    } catch (...) {
      ::close(fd);
      ::unlink(temp.c_str());
      throw;
    }
    out.flush();
  }
  if (!buf.drain() || buf.error() != 0)
    return fail(buf.error(), "write failed (the file was not changed)");
  // fsync: some file systems (NFS, ext4 with delayed allocation) report a full disk only here.
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
    return fail(errno, "flush to disk failed");
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return "cannot write '" + path + "': close failed: " + std::strerror(err);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return "cannot write '" + path + "': rename from " + temp + " failed: " + std::strerror(err);
  }
  return "";
}

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& produce) {
  const std::string error = try_write_file_atomic(path, produce);
  if (!error.empty()) throw WriteError(error);
}

void write_text_file_atomic(const std::string& path, const std::string& text) {
  write_file_atomic(path, [&](std::ostream& out) {
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  });
}

}  // namespace ipusim
