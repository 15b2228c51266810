// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

namespace parallax::core {

// A vector whose every mutable access (an element by reference, an iterator that can write, an
// insertion or removal, an assignment) advances a version number, so that what was computed from
// the list (Topology's summary, its GPU prefix table) is recomputed only when the list may have
// changed. Read access through a const list leaves the version alone. A mutable reference taken
// before a version is read and written after it is not seen: edit, then read.
template <typename T> class VersionedList {
public:
    using value_type = T;
    using size_type = typename std::vector<T>::size_type;
    using iterator = typename std::vector<T>::iterator;
    using const_iterator = typename std::vector<T>::const_iterator;

    VersionedList() = default;
    VersionedList(std::initializer_list<T> items)
        : m_items(items)
    {
    }
    VersionedList(const VersionedList&) = default;
    VersionedList(VersionedList&& other) noexcept
        : m_items(std::move(other.m_items))
        , m_version(other.m_version)
    {
        ++other.m_version;
    }
    VersionedList& operator=(const VersionedList& other)
    {
        m_items = other.m_items;
        m_version = std::max(m_version, other.m_version) + 1;
        return *this;
    }
    VersionedList& operator=(VersionedList&& other) noexcept
    {
        m_items = std::move(other.m_items);
        m_version = std::max(m_version, other.m_version) + 1;
        ++other.m_version;
        return *this;
    }
    VersionedList& operator=(std::initializer_list<T> items)
    {
        m_items = items;
        ++m_version;
        return *this;
    }

    std::uint64_t version() const { return m_version; }
    const std::vector<T>& items() const { return m_items; }
    operator const std::vector<T>&() const { return m_items; } // NOLINT(google-explicit-constructor)

    // Read access.
    size_type size() const { return m_items.size(); }
    bool empty() const { return m_items.empty(); }
    const T& operator[](size_type i) const { return m_items[i]; }
    const T& at(size_type i) const { return m_items.at(i); }
    const T& front() const { return m_items.front(); }
    const T& back() const { return m_items.back(); }
    const T* data() const { return m_items.data(); }
    const_iterator begin() const { return m_items.begin(); }
    const_iterator end() const { return m_items.end(); }
    const_iterator cbegin() const { return m_items.cbegin(); }
    const_iterator cend() const { return m_items.cend(); }

    // Write access: each advances the version.
    T& operator[](size_type i) { return touched()[i]; }
    T& at(size_type i) { return touched().at(i); }
    T& front() { return touched().front(); }
    T& back() { return touched().back(); }
    T* data() { return touched().data(); }
    iterator begin() { return touched().begin(); }
    iterator end() { return touched().end(); }
    void push_back(const T& v) { touched().push_back(v); }
    void push_back(T&& v) { touched().push_back(std::move(v)); }
    template <typename... Args> T& emplace_back(Args&&... args)
    {
        return touched().emplace_back(std::forward<Args>(args)...);
    }
    void pop_back() { touched().pop_back(); }
    iterator erase(const_iterator at) { return touched().erase(at); }
    iterator erase(const_iterator first, const_iterator last) { return touched().erase(first, last); }
    iterator insert(const_iterator at, const T& v) { return touched().insert(at, v); }
    template <typename It> iterator insert(const_iterator at, It first, It last)
    {
        return touched().insert(at, first, last);
    }
    void clear() { touched().clear(); }
    void resize(size_type n) { touched().resize(n); }
    void reserve(size_type n) { m_items.reserve(n); } // capacity only: the contents stay
    template <typename It> void assign(It first, It last) { touched().assign(first, last); }

    bool operator==(const VersionedList& o) const { return m_items == o.m_items; }

private:
    std::vector<T>& touched()
    {
        ++m_version;
        return m_items;
    }
    std::vector<T> m_items;
    std::uint64_t m_version = 0;
};

} // namespace parallax::core
