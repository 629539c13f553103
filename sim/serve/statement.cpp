#include "sim/serve/statement.hpp"

#include <cctype>

namespace lbsim::cql {
namespace {

struct Tok {
  enum Kind : std::uint8_t { Word, Quoted, String, Number, Hex, Symbol, Marker, End } kind = End;
  std::string text;
};

std::vector<Tok> tokenize(const std::string& s) {
  std::vector<Tok> out;
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '-' && i + 1 < n && s[i + 1] == '-') {  // -- comment to the end of the line
      while (i < n && s[i] != '\n') ++i;
    } else if (c == '\'') {
      std::string v;
      ++i;
      for (;;) {
        if (i >= n) throw SyntaxError("unterminated string literal");
        if (s[i] == '\'') {
          if (i + 1 < n && s[i + 1] == '\'') {
            v += '\'';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        v += s[i++];
      }
      out.push_back({Tok::String, v});
    } else if (c == '"') {
      std::string v;
      ++i;
      for (;;) {
        if (i >= n) throw SyntaxError("unterminated quoted identifier");
        if (s[i] == '"') {
          if (i + 1 < n && s[i + 1] == '"') {
            v += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        v += s[i++];
      }
      out.push_back({Tok::Quoted, v});
    } else if (c == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
      std::size_t j = i + 2;
      while (j < n && std::isxdigit(static_cast<unsigned char>(s[j]))) ++j;
      out.push_back({Tok::Hex, s.substr(i + 2, j - i - 2)});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '-' && i + 1 < n && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      std::size_t j = i + 1;
      while (j < n && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.' || s[j] == '-')) ++j;
      out.push_back({Tok::Number, s.substr(i, j - i)});
      i = j;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i + 1;
      while (j < n && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.push_back({Tok::Word, s.substr(i, j - i)});
      i = j;
    } else if (c == '?') {
      out.push_back({Tok::Marker, "?"});
      ++i;
    } else if (std::string_view("(),;=.*<>{}:[]+").find(c) != std::string_view::npos) {
      out.push_back({Tok::Symbol, std::string(1, c)});
      ++i;
    } else {
      throw SyntaxError(std::string("unexpected character '") + c + "'");
    }
  }
  out.push_back({Tok::End, ""});
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class Parser {
 public:
  explicit Parser(const std::string& cql) : t_(tokenize(cql)) {}

  Statement statement() {
    Statement st;
    if (accept_kw("select")) select(st);
    else if (accept_kw("insert")) insert(st);
    else if (accept_kw("update")) update(st);
    else if (accept_kw("delete")) del(st);
    else if (accept_kw("use")) {
      st.kind = Statement::Use;
      st.table = identifier();
    } else if (accept_kw("create")) {
      if (accept_kw("keyspace") || accept_kw("schema")) create_keyspace(st);
      else if (accept_kw("table") || accept_kw("columnfamily")) create_table(st);
      else fail("CREATE of anything but a KEYSPACE or a TABLE");
    } else if (accept_kw("begin")) {
      st.kind = Statement::Batch;  // BEGIN [UNLOGGED|COUNTER] BATCH ... APPLY BATCH: routed by its first statement
      while (peek().kind != Tok::End && !(is_kw("insert") || is_kw("update") || is_kw("delete"))) ++p_;
      if (peek().kind == Tok::End) fail("a BATCH with no statement");
      Statement inner = Parser(*this).statement_rest();
      inner.kind = Statement::Batch;
      return inner;
    } else {
      fail("a statement this server does not know (SELECT, INSERT, UPDATE, DELETE, USE, CREATE KEYSPACE, CREATE TABLE, BEGIN BATCH)");
    }
    accept_sym(";");
    if (peek().kind != Tok::End) fail("text after the end of the statement");
    return st;
  }

 private:
  // The statement starting at the current token (a BATCH's first), without the end checks.
  Statement statement_rest() {
    Statement st;
    if (accept_kw("insert")) insert(st);
    else if (accept_kw("update")) update(st);
    else if (accept_kw("delete")) del(st);
    return st;
  }

  const Tok& peek(std::size_t k = 0) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  [[noreturn]] void fail(const std::string& what) const {
    const Tok& t = peek();
    throw SyntaxError("line 1: " + what + (t.kind == Tok::End ? " at the end of the input" : " at '" + t.text + "'"));
  }
  bool is_kw(const char* kw) const { return peek().kind == Tok::Word && lower(peek().text) == kw; }
  bool accept_kw(const char* kw) {
    if (!is_kw(kw)) return false;
    ++p_;
    return true;
  }
  void expect_kw(const char* kw) {
    if (!accept_kw(kw)) fail(std::string("expected ") + kw);
  }
  bool accept_sym(const char* s) {
    if (peek().kind != Tok::Symbol || peek().text != s) return false;
    ++p_;
    return true;
  }
  void expect_sym(const char* s) {
    if (!accept_sym(s)) fail(std::string("expected '") + s + "'");
  }
  std::string identifier() {
    const Tok& t = peek();
    if (t.kind == Tok::Word) {
      ++p_;
      return lower(t.text);
    }
    if (t.kind == Tok::Quoted) {
      ++p_;
      return t.text;
    }
    fail("expected an identifier");
  }
  void table_name(Statement& st) {
    std::string a = identifier();
    if (accept_sym(".")) {
      st.keyspace = a;
      st.table = identifier();
    } else {
      st.table = a;
    }
  }
  Term term(Statement& st, const std::string& column) {
    const Tok& t = peek();
    Term out;
    switch (t.kind) {
      case Tok::Marker:
        out.marker = st.markers++;
        st.marker_columns.push_back(column);
        break;
      case Tok::String: out.literal = t.text, out.quoted = true; break;
      case Tok::Number: out.literal = t.text; break;
      case Tok::Hex: out.literal = "0x" + t.text; break;
      case Tok::Word: out.literal = lower(t.text); break;  // true, false, null, a uuid's first group...
      default: fail("expected a value or '?'");
    }
    ++p_;
    // A uuid literal: hex groups joined by '-' (tokenized as a number or a word and numbers).
    while (peek().kind == Tok::Number && !peek().text.empty() && peek().text[0] == '-' && out.marker < 0) {
      out.literal += peek().text;
      ++p_;
    }
    return out;
  }
  void where(Statement& st) {
    if (!accept_kw("where")) return;
    do {
      const std::string col = identifier();
      if (accept_kw("in")) fail("IN restrictions (one partition per request only)");
      expect_sym("=");
      st.where.emplace_back(col, term(st, col));
    } while (accept_kw("and"));
  }
  void skip_using(Statement& st) {
    if (!accept_kw("using")) return;
    do {
      if (!accept_kw("ttl") && !accept_kw("timestamp")) fail("expected TTL or TIMESTAMP");
      term(st, "[using]");
    } while (accept_kw("and"));
  }
  void conditions(Statement& st) {
    if (!accept_kw("if")) return;
    st.conditional = true;
    if (accept_kw("not")) {
      expect_kw("exists");
      return;
    }
    if (accept_kw("exists")) return;
    do {
      const std::string col = identifier();
      if (peek().kind != Tok::Symbol) fail("expected a comparison");
      ++p_;
      if (peek().kind == Tok::Symbol && peek().text == "=") ++p_;  // <=, >=
      term(st, col);
    } while (accept_kw("and"));
  }

  void select(Statement& st) {
    st.kind = Statement::Select;
    accept_kw("json");
    accept_kw("distinct");
    if (accept_sym("*")) {
      st.star = true;
    } else {
      do {
        std::string c = identifier();
        if (accept_sym("(")) {  // a function call such as count(*) or writetime(v): named as written
          int depth = 1;
          while (depth > 0 && peek().kind != Tok::End) {
            if (accept_sym("(")) ++depth;
            else if (accept_sym(")")) --depth;
            else ++p_;
          }
          c += "()";
        }
        if (accept_kw("as")) c = identifier();
        st.columns.push_back(c);
      } while (accept_sym(","));
    }
    expect_kw("from");
    table_name(st);
    where(st);
    while (peek().kind == Tok::Word) {  // LIMIT n, ALLOW FILTERING, PER PARTITION LIMIT n, ORDER BY ...
      if (accept_kw("limit")) term(st, "[limit]");
      else ++p_;
    }
  }
  void insert(Statement& st) {
    st.kind = Statement::Insert;
    expect_kw("into");
    table_name(st);
    expect_sym("(");
    do st.columns.push_back(identifier());
    while (accept_sym(","));
    expect_sym(")");
    expect_kw("values");
    expect_sym("(");
    for (std::size_t i = 0; i < st.columns.size(); ++i) {
      if (i > 0) expect_sym(",");
      st.where.emplace_back(st.columns[i], term(st, st.columns[i]));
    }
    expect_sym(")");
    conditions(st);
    skip_using(st);
  }
  void update(Statement& st) {
    st.kind = Statement::Update;
    table_name(st);
    skip_using(st);
    expect_kw("set");
    do {
      const std::string col = identifier();
      expect_sym("=");
      st.assignments.emplace_back(col, term(st, col));
    } while (accept_sym(","));
    where(st);
    conditions(st);
  }
  void del(Statement& st) {
    st.kind = Statement::Delete;
    while (!is_kw("from") && peek().kind != Tok::End) ++p_;  // the deleted columns
    expect_kw("from");
    table_name(st);
    skip_using(st);
    where(st);
    conditions(st);
  }
  void if_not_exists(Statement& st) {
    if (accept_kw("if")) {
      expect_kw("not");
      expect_kw("exists");
      st.if_not_exists = true;
    }
  }
  void create_keyspace(Statement& st) {
    st.kind = Statement::CreateKeyspace;
    if_not_exists(st);
    st.table = identifier();
    expect_kw("with");
    do {
      const std::string opt = identifier();
      expect_sym("=");
      if (opt == "replication") {
        expect_sym("{");
        do {
          const std::string k = peek().kind == Tok::String ? peek().text : (fail("expected a quoted key"), "");
          ++p_;
          expect_sym(":");
          const Tok v = peek();
          if (v.kind != Tok::String && v.kind != Tok::Number) fail("expected a value");
          ++p_;
          st.replication.emplace_back(k, v.text);
        } while (accept_sym(","));
        expect_sym("}");
      } else {
        ++p_;  // durable_writes = true
      }
    } while (accept_kw("and"));
  }
  void create_table(Statement& st) {
    st.kind = Statement::CreateTable;
    if_not_exists(st);
    table_name(st);
    expect_sym("(");
    do {
      if (accept_kw("primary")) {
        expect_kw("key");
        expect_sym("(");
        if (accept_sym("(")) {
          do st.partition_key.push_back(identifier());
          while (accept_sym(","));
          expect_sym(")");
        } else {
          st.partition_key.push_back(identifier());
        }
        while (accept_sym(",")) st.clustering.push_back(identifier());
        expect_sym(")");
        continue;
      }
      ColumnSpec c;
      c.name = identifier();
      // The type runs to the next ',' or ')' at depth 0 (or to PRIMARY KEY / STATIC).
      std::string type;
      int depth = 0;
      while (peek().kind != Tok::End) {
        if (depth == 0 && peek().kind == Tok::Symbol && (peek().text == "," || peek().text == ")")) break;
        if (depth == 0 && (is_kw("primary") || is_kw("static"))) break;
        if (peek().kind == Tok::Symbol && peek().text == "<") ++depth;
        if (peek().kind == Tok::Symbol && peek().text == ">") --depth;
        type += peek().text;
        ++p_;
      }
      auto t = parse_type(type);
      if (!t) fail("unknown type '" + type + "'");
      c.type = *t;
      accept_kw("static");
      if (accept_kw("primary")) {
        expect_kw("key");
        st.partition_key.push_back(c.name);
      }
      st.create_columns.push_back(std::move(c));
    } while (accept_sym(","));
    expect_sym(")");
    while (peek().kind != Tok::End && !(peek().kind == Tok::Symbol && peek().text == ";")) ++p_;  // WITH options
  }

  std::vector<Tok> t_;
  std::size_t p_ = 0;
};

}  // namespace

Statement parse_statement(const std::string& cql) { return Parser(cql).statement(); }

std::string fold_identifier(const std::string& id) {
  if (id.size() >= 2 && id.front() == '"' && id.back() == '"') return id.substr(1, id.size() - 2);
  return lower(id);
}

}  // namespace lbsim::cql
