package org.edl.scheduler.rm;

import java.io.File;
import java.io.IOException;
import java.util.Locale;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.AllocationConfigurationException;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.SchedulingPolicy;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * Checks a FairScheduler allocation file for the mistakes the stock loader lets through or
 * reports without saying where: XML that is not well formed, a scheduling policy that names no
 * class (or a class that is no {@code SchedulingPolicy}), a parent whose policy refuses its
 * child's (a {@code fair} parent over a DRF-kind child), a weight that is negative or not a
 * number. Each error names the file, the queue and the value. Everything else is left to the
 * stock loader.
 */
final class AllocationFileCheck {
  private AllocationFileCheck() {}

  static void check(File file) throws AllocationConfigurationException {
    Document doc;
    try {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setIgnoringComments(true);
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      DocumentBuilder b = f.newDocumentBuilder();
      b.setErrorHandler(null);
      doc = b.parse(file);
    } catch (SAXParseException e) {
      throw error(file, "is not well-formed XML at line " + e.getLineNumber() + ", column "
          + e.getColumnNumber() + ": " + e.getMessage());
    } catch (SAXException | IOException | ParserConfigurationException e) {
      throw error(file, "cannot be read: " + e);
    }
    Element root = doc.getDocumentElement();
    if (!"allocations".equals(root.getTagName())) {
      throw error(file, "has top-level element <" + root.getTagName() + ">, not <allocations>");
    }
    SchedulingPolicy defaultPolicy = SchedulingPolicy.DEFAULT_POLICY;
    for (Element e : children(root)) {
      String tag = e.getTagName();
      if (tag.equals("defaultQueueSchedulingPolicy") || tag.equals("defaultQueueSchedulingMode")) {
        defaultPolicy = policy(file, "(" + tag + ")", text(e));
      }
    }
    boolean rootConfigured = false;
    for (Element e : children(root)) {
      if (isQueue(e) && e.getAttribute("name").trim().equalsIgnoreCase("root")) {
        rootConfigured = true;
      }
    }
    for (Element e : children(root)) {
      if (isQueue(e)) {
        if (rootConfigured) {
          queue(file, null, defaultPolicy, e, defaultPolicy);
        } else {
          queue(file, "root", defaultPolicy, e, defaultPolicy);
        }
      }
    }
  }

  private static void queue(
      File file, String parentName, SchedulingPolicy parentPolicy, Element q,
      SchedulingPolicy defaultPolicy) throws AllocationConfigurationException {
    String name = q.getAttribute("name").trim();
    String full = parentName == null ? name : parentName + "." + name;
    SchedulingPolicy own = defaultPolicy;
    for (Element field : children(q)) {
      String tag = field.getTagName();
      if (tag.equals("weight")) {
        String text = text(field);
        double w;
        try {
          w = Double.parseDouble(text);
        } catch (NumberFormatException ex) {
          throw error(file, "queue " + full + ": weight '" + text + "' is not a number");
        }
        if (!(w >= 0) || Double.isInfinite(w)) {
          throw error(file, "queue " + full + ": weight " + text + " must be a number >= 0");
        }
      } else if (tag.equals("schedulingPolicy") || tag.equals("schedulingMode")) {
        own = policy(file, full, text(field));
      }
    }
    if (parentName != null && !parentPolicy.isChildPolicyAllowed(own)) {
      throw error(file, "queue " + full + ": its policy " + own.getName()
          + " is not allowed under parent " + parentName + "'s policy " + parentPolicy.getName()
          + " (a fair parent refuses DRF-kind children, which the EDL policies are: make the"
          + " parent drf or an EDL policy too)");
    }
    for (Element child : children(q)) {
      if (isQueue(child)) {
        queue(file, full, own, child, defaultPolicy);
      }
    }
  }

  private static SchedulingPolicy policy(File file, String queue, String text)
      throws AllocationConfigurationException {
    String lower = text.toLowerCase(Locale.ROOT);
    if (!lower.equals("fair") && !lower.equals("fifo") && !lower.equals("drf")) {
      Class<?> c;
      try {
        c = Class.forName(text);
      } catch (ClassNotFoundException | LinkageError e) {
        throw error(file, "queue " + queue + ": scheduling policy class '" + text
            + "' is not on the ResourceManager's classpath (" + e + ")");
      }
      if (!SchedulingPolicy.class.isAssignableFrom(c)) {
        throw error(file, "queue " + queue + ": scheduling policy class '" + text
            + "' does not extend " + SchedulingPolicy.class.getName());
      }
    }
    try {
      return SchedulingPolicy.parse(text);
    } catch (AllocationConfigurationException | RuntimeException e) {
      throw error(file, "queue " + queue + ": scheduling policy '" + text + "': " + e);
    }
  }

  private static boolean isQueue(Element e) {
    return e.getTagName().equals("queue") || e.getTagName().equals("pool");
  }

  private static String text(Element e) {
    return e.getTextContent() == null ? "" : e.getTextContent().trim();
  }

  private static Iterable<Element> children(Element parent) {
    NodeList nodes = parent.getChildNodes();
    java.util.List<Element> out = new java.util.ArrayList<>();
    for (int i = 0; i < nodes.getLength(); i++) {
      Node n = nodes.item(i);
      if (n instanceof Element el) {
        out.add(el);
      }
    }
    return out;
  }

  private static AllocationConfigurationException error(File file, String what) {
    return new AllocationConfigurationException("allocation file " + file + " " + what);
  }
}
