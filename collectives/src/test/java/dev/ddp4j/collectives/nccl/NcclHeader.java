package dev.ddp4j.collectives.nccl;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What NcclHeaderTest reads from an nccl.h text: the values of its typedef'd enums, its {@code
 * #define}s and the fields of a typedef'd struct with their offsets under the x86-64 Linux ABI
 * (LP64: {@code size_t} and pointers 8 bytes, {@code int} 4, each aligned to its size).
 */
final class NcclHeader {

  /** One struct field: C type, name, byte offset. */
  record Field(String type, String name, int offset, int size) {}

  private final String text;

  NcclHeader(String text) {
    // Comments out, so that they cannot look like definitions.
    this.text = text.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\\n]*", " ");
  }

  /** The constants of {@code typedef enum { ... } name;} that have a literal value. */
  Map<String, Long> enumValues(String name) {
    Matcher m =
        Pattern.compile("typedef\\s+enum\\s*\\w*\\s*\\{([^}]*)\\}\\s*" + name + "\\s*;")
            .matcher(text);
    if (!m.find()) {
      throw new AssertionError("no enum " + name + " in the header");
    }
    Map<String, Long> out = new LinkedHashMap<>();
    Matcher e =
        Pattern.compile("(\\w+)\\s*=\\s*(-?(?:0x[0-9a-fA-F]+|\\d+))\\s*(?:,|$)")
            .matcher(m.group(1).trim());
    while (e.find()) {
      out.put(e.group(1), Long.decode(e.group(2)));
    }
    return out;
  }

  /** The replacement text of {@code #define name}. */
  String define(String name) {
    Matcher m = Pattern.compile("#define\\s+" + name + "\\s+([^\\n]+)").matcher(text);
    if (!m.find()) {
      throw new AssertionError("no #define " + name + " in the header");
    }
    return m.group(1).trim();
  }

  /**
   * The magic number {@code NCCL_CONFIG_INITIALIZER} writes: newer headers name it {@code
   * NCCL_API_MAGIC}, NCCL 2.14-2.2x headers write the literal into the initializer.
   */
  long configMagic() {
    Matcher m =
        Pattern.compile("#define\\s+NCCL_CONFIG_INITIALIZER\\s*\\{[^,]*,\\s*([\\w()]+)")
            .matcher(text.replace("\\\n", " "));
    if (!m.find()) {
      throw new AssertionError("no #define NCCL_CONFIG_INITIALIZER in the header");
    }
    String magic = m.group(1).replaceAll("\\(unsigned int\\)|[()]", "");
    return Long.decode(magic.matches("0[xX]\\p{XDigit}+|\\d+") ? magic : define(magic));
  }

  /** The fields of {@code typedef struct [tag] { ... } name;}, in order, with LP64 offsets. */
  List<Field> structFields(String name) {
    Matcher m =
        Pattern.compile("typedef\\s+struct\\s*\\w*\\s*\\{([^}]*)\\}\\s*" + name + "\\s*;")
            .matcher(text);
    if (!m.find()) {
      throw new AssertionError("no struct " + name + " in the header");
    }
    List<Field> out = new ArrayList<>();
    int offset = 0;
    for (String decl : m.group(1).split(";")) {
      String d = decl.trim().replaceAll("\\s+", " ");
      if (d.isEmpty()) {
        continue;
      }
      Matcher f = Pattern.compile("(.*?)\\s*(\\**)\\s*(\\w+)(?:\\[(\\w+)\\])?$").matcher(d);
      if (!f.matches()) {
        throw new AssertionError("cannot read field '" + d + "' of " + name);
      }
      String type = (f.group(1) + f.group(2)).trim();
      int align = sizeOf(type);
      int count = f.group(4) == null ? 1 : arrayLength(f.group(4));
      offset = (offset + align - 1) / align * align;
      out.add(new Field(type, f.group(3), offset, align * count));
      offset += align * count;
    }
    return out;
  }

  private int arrayLength(String length) {
    return length.chars().allMatch(Character::isDigit)
        ? Integer.parseInt(length)
        : Integer.parseInt(define(length));
  }

  private static int sizeOf(String type) {
    if (type.equals("char")) {
      return 1;
    }
    if (type.endsWith("*") || type.equals("size_t")) {
      return 8;
    }
    if (type.equals("int") || type.equals("unsigned int")) {
      return 4;
    }
    throw new AssertionError("no LP64 size known for C type '" + type + "'");
  }
}
