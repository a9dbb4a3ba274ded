// SPDX-License-Identifier: Apache-2.0
#include "whatif/layout.h"

#include <dnnl_debug.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <numeric>
#include <vector>

#include "verbose/shape_math.h"

namespace dlcheck::whatif {
namespace {

using dnnl::memory;

// A tag read into its parts: the outer letters in order (upper case: a blocked dimension) and
// the inner blocks from the outermost, each a size and a dimension index.
struct TagParts {
  std::vector<int> outer;
  std::vector<std::pair<dnnl_dim_t, int>> blocks;
};

std::optional<TagParts> ReadTag(std::string_view tag) {
  TagParts parts;
  std::size_t i = 0;
  while (i < tag.size() && std::isalpha(static_cast<unsigned char>(tag[i]))) {
    parts.outer.push_back(std::tolower(static_cast<unsigned char>(tag[i])) - 'a');
    ++i;
  }
  while (i < tag.size()) {
    const std::size_t start = i;
    while (i < tag.size() && std::isdigit(static_cast<unsigned char>(tag[i]))) ++i;
    dnnl_dim_t size = 0;
    std::from_chars(tag.data() + start, tag.data() + i, size);
    if (start == i || size <= 0 || i >= tag.size() ||
        !std::islower(static_cast<unsigned char>(tag[i]))) {
      return std::nullopt;
    }
    parts.blocks.emplace_back(size, tag[i] - 'a');
    ++i;
  }
  return parts;
}

// The extra flags of a compensated weights tensor (`f8:zpm1`, `f1:s8m2`); the `_mask4` a matmul
// bias carries says nothing about its layout.
void ReadFlags(std::string_view flags, dnnl_memory_extra_desc_t& extra) {
  std::size_t end = flags.find('_');
  flags = flags.substr(0, end);
  std::size_t pos = 0;
  while (pos <= flags.size()) {
    const std::size_t colon = flags.find(':', pos);
    const std::string_view piece =
        flags.substr(pos, colon == std::string_view::npos ? flags.npos : colon - pos);
    auto number = [&](std::size_t skip, int base) {
      long long v = 0;
      std::from_chars(piece.data() + skip, piece.data() + piece.size(), v, base);
      return v;
    };
    if (piece.starts_with("s8m")) {
      extra.compensation_mask = static_cast<int>(number(3, 10));
    } else if (piece.starts_with("zpm")) {
      extra.asymm_compensation_mask = static_cast<int>(number(3, 10));
    } else if (piece.starts_with("f")) {
      extra.flags = static_cast<std::uint64_t>(number(1, 16));
    }
    if (colon == std::string_view::npos) break;
    pos = colon + 1;
  }
}

// The product of the inner blocks of dimension `d`.
dnnl_dim_t BlockOf(const dnnl_memory_desc_t& c, int d) {
  dnnl_dim_t block = 1;
  const auto& blocking = c.format_desc.blocking;
  for (int b = 0; b < blocking.inner_nblks; ++b) {
    if (blocking.inner_idxs[b] == d) block *= blocking.inner_blks[b];
  }
  return block;
}

}  // namespace

std::optional<memory::data_type> DataTypeNamed(std::string_view name) {
  static const std::map<std::string_view, memory::data_type, std::less<>> kTypes = {
      {"f32", memory::data_type::f32}, {"bf16", memory::data_type::bf16},
      {"f16", memory::data_type::f16}, {"s8", memory::data_type::s8},
      {"u8", memory::data_type::u8},   {"s32", memory::data_type::s32}};
  const auto it = kTypes.find(name);
  if (it == kTypes.end()) return std::nullopt;
  return it->second;
}

std::string DataTypeName(memory::data_type type) {
  return dnnl_dt2str(static_cast<dnnl_data_type_t>(type));
}

std::optional<dnnl::algorithm> AlgorithmNamed(std::string_view name) {
  // oneDNN's own names, read back from its debug table: no list to keep beside the library.
  static const std::map<std::string, int, std::less<>> kAlgorithms = [] {
    std::map<std::string, int, std::less<>> names;
    for (int kind = 1; kind < 0x40000; ++kind) {
      const std::string text = dnnl_alg_kind2str(static_cast<dnnl_alg_kind_t>(kind));
      if (text != "unknown alg_kind") names.emplace(text, kind);
    }
    return names;
  }();
  const auto it = kAlgorithms.find(name);
  if (it == kAlgorithms.end()) return std::nullopt;
  return static_cast<dnnl::algorithm>(it->second);
}

memory::desc PlainDesc(const memory::dims& dims, memory::data_type type) {
  memory::dims strides(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;)
    strides[i - 1] = strides[i] * std::max<dnnl_dim_t>(dims[i], 1);
  return memory::desc(dims, type, strides);
}

StatusOr<memory::desc> MakeMemoryDesc(const memory::dims& dims, const verbose::MemoryDesc& md,
                                      std::string_view data_type) {
  if (std::string why = verbose::ShapeProblem(dims); !why.empty())
    return InputError(md.name + ": " + why);
  const std::string_view type_name = data_type.empty() ? std::string_view(md.data_type) : data_type;
  const std::optional<memory::data_type> type = DataTypeNamed(type_name);
  if (!type) {
    return InputError("data type '" + std::string(type_name) + "' of " + md.name +
                      " has no oneDNN 2.6.3 equivalent");
  }
  if (md.format_kind == "any") return memory::desc(dims, *type, memory::format_tag::any);
  if (md.format_kind != "blocked") {
    return InputError("layout '" + md.format_kind + "' of " + md.name +
                      " is internal to the kernel that made it and cannot be given to oneDNN");
  }
  const std::optional<TagParts> parts = ReadTag(md.tag);
  const int ndims = static_cast<int>(dims.size());
  const auto bad_tag = [&] {
    return InputError("tag '" + md.tag + "' of " + md.name + " does not fit its " +
                      std::to_string(ndims) + " dimensions");
  };
  if (!parts || static_cast<int>(parts->outer.size()) != ndims || ndims > DNNL_MAX_NDIMS)
    return bad_tag();
  dnnl_memory_desc_t c{};
  c.ndims = ndims;
  c.data_type = static_cast<dnnl_data_type_t>(*type);
  c.format_kind = dnnl_blocked;
  // Blocks, padded sizes and strides in checked arithmetic (verbose/shape_math.h): a tag's
  // blocks are the log's too, and `A4294967296a4294967296a` multiplies to 0 in 64 bits.
  const auto too_large = [&] {
    return InputError("tag '" + md.tag + "' of " + md.name +
                      " pads the tensor beyond 2^48 elements (its blocks times its dimensions)");
  };
  std::vector<dnnl_dim_t> block_of(ndims, 1);
  for (const auto& [size, dim] : parts->blocks) {
    if (dim >= ndims) return bad_tag();
    const std::optional<std::int64_t> block = verbose::CheckedMultiply(block_of[dim], size);
    if (!block || *block > verbose::kMaxDimension) return too_large();
    block_of[dim] = *block;
  }
  for (int d = 0; d < ndims; ++d) {
    c.dims[d] = dims[d];
    c.padded_dims[d] = (dims[d] + block_of[d] - 1) / block_of[d] * block_of[d];
  }
  auto& blocking = c.format_desc.blocking;
  blocking.inner_nblks = static_cast<int>(parts->blocks.size());
  std::int64_t stride = 1;
  for (std::size_t b = 0; b < parts->blocks.size(); ++b) {
    blocking.inner_blks[b] = parts->blocks[b].first;
    blocking.inner_idxs[b] = parts->blocks[b].second;
    const std::optional<std::int64_t> next =
        verbose::CheckedMultiply(stride, parts->blocks[b].first);
    if (!next || *next > verbose::kMaxElements) return too_large();
    stride = *next;
  }
  std::vector<bool> seen(ndims, false);
  for (std::size_t i = parts->outer.size(); i-- > 0;) {
    const int d = parts->outer[i];
    if (d >= ndims || seen[d]) return bad_tag();
    seen[d] = true;
    blocking.strides[d] = stride;
    const std::optional<std::int64_t> next =
        verbose::CheckedMultiply(stride, std::max<dnnl_dim_t>(c.padded_dims[d] / block_of[d], 1));
    if (!next || *next > verbose::kMaxElements) return too_large();
    stride = *next;
  }
  ReadFlags(md.flags, c.extra);
  return memory::desc(c);
}

std::string TagOf(const memory::desc& desc) {
  const dnnl_memory_desc_t& c = desc.data;
  if (c.format_kind == dnnl_format_kind_any) return "any";
  if (c.format_kind != dnnl_blocked) return "";
  const auto& blocking = c.format_desc.blocking;
  std::vector<bool> blocked(c.ndims, false);
  for (int b = 0; b < blocking.inner_nblks; ++b) blocked[blocking.inner_idxs[b]] = true;
  std::vector<int> order(c.ndims);
  std::iota(order.begin(), order.end(), 0);
  // Equal strides come from a dimension of one outer element (ic 1 in `Acdb16a`): it is the
  // inner of the two, as oneDNN prints it, or the tag would read back as another layout.
  const auto outer = [&](int d) { return c.padded_dims[d] / BlockOf(c, d); };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (blocking.strides[a] != blocking.strides[b])
      return blocking.strides[a] > blocking.strides[b];
    return outer(a) > 1 && outer(b) == 1;
  });
  std::string tag;
  for (int d : order) tag += static_cast<char>((blocked[d] ? 'A' : 'a') + d);
  for (int b = 0; b < blocking.inner_nblks; ++b) {
    tag += std::to_string(blocking.inner_blks[b]) + static_cast<char>('a' + blocking.inner_idxs[b]);
  }
  return tag;
}

}  // namespace dlcheck::whatif
