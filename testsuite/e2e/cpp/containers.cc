// std::vector and std::string copies (copy construction, assignment,
// insert, std::copy), a copy followed by an exception that unwinds through
// the buffers, and copies of a struct with a large array member.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

static uint64_t fold(const unsigned char *p, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

struct Packet {
    std::array<unsigned char, 40000> body;
    size_t used;
};

static uint64_t parse_or_throw(std::vector<unsigned char> v, size_t limit) {
    std::vector<unsigned char> copy(v);  // a copy that unwinds if we throw
    if (copy.size() > limit) throw std::length_error("packet too long: " + std::to_string(copy.size()));
    return fold(copy.data(), copy.size());
}

int main() {
    std::vector<unsigned char> a(1 << 20);
    std::iota(a.begin(), a.end(), 0);
    std::vector<unsigned char> b(a);               // copy construction
    std::vector<unsigned char> c;
    c = b;                                         // copy assignment
    c.insert(c.end(), a.begin(), a.begin() + 70000);
    std::vector<unsigned char> d(a.size());
    std::copy(b.begin(), b.end(), d.begin());
    uint64_t h = fold(b.data(), b.size()) ^ fold(c.data(), c.size()) ^ fold(d.data(), d.size());

    std::string s(200000, 'x');
    for (size_t i = 0; i < s.size(); i += 97) s[i] = char('a' + i % 26);
    std::string t = s;                              // string copy
    std::string u = t.substr(1000, 150000);
    u += t;
    h += fold(reinterpret_cast<const unsigned char *>(u.data()), u.size());

    Packet p{};
    for (size_t i = 0; i < p.body.size(); i++) p.body[i] = static_cast<unsigned char>(i * 13);
    p.used = p.body.size();
    std::vector<Packet> ps(4, p);                   // struct copies
    ps[2].body[5] = 9;
    Packet q = ps[2];
    h += fold(q.body.data(), q.used);

    int caught = 0;
    for (size_t limit : {size_t(1) << 21, size_t(1000)}) {
        try {
            h += parse_or_throw(a, limit);
        } catch (const std::length_error &e) {
            caught++;
            h += std::string(e.what()).size();
        }
    }
    std::printf("containers hash=%016llx caught=%d\n", static_cast<unsigned long long>(h), caught);
}
