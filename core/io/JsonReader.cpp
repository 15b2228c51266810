// SPDX-License-Identifier: Apache-2.0
#include "core/io/JsonReader.h"

#include <cmath>
#include <sstream>

namespace parallax::core {

std::string jsonTypeName(const nlohmann::json& j)
{
    if (j.is_null())
        return "null";
    if (j.is_boolean())
        return "a boolean";
    if (j.is_number())
        return "a number";
    if (j.is_string())
        return "a string";
    if (j.is_array())
        return "an array";
    return "an object";
}

namespace {
std::string show(double v)
{
    std::ostringstream out;
    out << v;
    return out.str();
}
} // namespace

JsonReader::JsonReader(const nlohmann::json& object, std::string path)
    : m_object(object)
    , m_path(std::move(path))
{
    if (!m_object.is_object())
        throw JsonFieldError(m_path, "must be an object, got " + jsonTypeName(m_object));
}

bool JsonReader::has(const std::string& key) const
{
    return m_object.contains(key) && !m_object.at(key).is_null();
}

void JsonReader::fail(const std::string& key, const std::string& message) const
{
    throw JsonFieldError(childPath(key), message);
}

const nlohmann::json& JsonReader::at(const std::string& key)
{
    m_used.insert(key);
    if (!has(key))
        fail(key, "is missing");
    return m_object.at(key);
}

long long JsonReader::integer(const std::string& key, long long min, long long max)
{
    const nlohmann::json& v = at(key);
    if (!v.is_number())
        fail(key, "must be an integer, got " + jsonTypeName(v));
    const double d = v.get<double>();
    if (std::floor(d) != d)
        fail(key, "must be an integer, got " + show(d));
    if (d < static_cast<double>(min))
        fail(key, "must be >= " + std::to_string(min) + ", got " + show(d));
    if (d > static_cast<double>(max))
        fail(key, "must be <= " + std::to_string(max) + ", got " + show(d));
    return static_cast<long long>(d);
}

long long JsonReader::integer(const std::string& key, long long min, long long max, long long fallback)
{
    m_used.insert(key);
    return has(key) ? integer(key, min, max) : fallback;
}

double JsonReader::number(const std::string& key, double min, double max)
{
    const nlohmann::json& v = at(key);
    if (!v.is_number())
        fail(key, "must be a number, got " + jsonTypeName(v));
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < min)
        fail(key, "must be >= " + show(min) + ", got " + show(d));
    if (d > max)
        fail(key, "must be <= " + show(max) + ", got " + show(d));
    return d;
}

double JsonReader::number(const std::string& key, double min, double max, double fallback)
{
    m_used.insert(key);
    return has(key) ? number(key, min, max) : fallback;
}

bool JsonReader::boolean(const std::string& key, bool fallback)
{
    m_used.insert(key);
    if (!has(key))
        return fallback;
    const nlohmann::json& v = m_object.at(key);
    if (!v.is_boolean())
        fail(key, "must be true or false, got " + jsonTypeName(v));
    return v.get<bool>();
}

std::string JsonReader::string(const std::string& key)
{
    const nlohmann::json& v = at(key);
    if (!v.is_string())
        fail(key, "must be a string, got " + jsonTypeName(v));
    return v.get<std::string>();
}

std::string JsonReader::string(const std::string& key, const std::string& fallback)
{
    m_used.insert(key);
    return has(key) ? string(key) : fallback;
}

JsonReader JsonReader::object(const std::string& key)
{
    const nlohmann::json& v = at(key);
    if (!v.is_object())
        fail(key, "must be an object, got " + jsonTypeName(v));
    return JsonReader(v, childPath(key));
}

void JsonReader::collectUnknown(nlohmann::json& extra) const
{
    for (auto it = m_object.begin(); it != m_object.end(); ++it) {
        if (!m_used.count(it.key()))
            extra[it.key()] = it.value();
    }
}

} // namespace parallax::core
