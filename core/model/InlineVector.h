// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>

namespace parallax::core {

// A vector of at most N elements stored in place: no allocation. For small lists the engine builds on
// every evaluation (a layer's linears); pushing beyond N is a programming error and throws.
template <typename T, std::size_t N> class InlineVector {
public:
    void push_back(const T& value)
    {
        if (m_size == N)
            throw std::length_error("InlineVector: capacity exceeded");
        m_items[m_size++] = value;
    }
    void clear() { m_size = 0; }
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    static constexpr std::size_t capacity() { return N; }
    T& operator[](std::size_t i) { return m_items[i]; }
    const T& operator[](std::size_t i) const { return m_items[i]; }
    T& front() { return m_items[0]; }
    const T& front() const { return m_items[0]; }
    T& back() { return m_items[m_size - 1]; }
    const T& back() const { return m_items[m_size - 1]; }
    T* begin() { return m_items.data(); }
    T* end() { return m_items.data() + m_size; }
    const T* begin() const { return m_items.data(); }
    const T* end() const { return m_items.data() + m_size; }

private:
    std::array<T, N> m_items {};
    std::size_t m_size = 0;
};

} // namespace parallax::core
