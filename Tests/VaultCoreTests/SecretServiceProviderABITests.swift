import Foundation
import Testing
import VaultTestSupport

/// The provider's shim (Sources/CVaultBus) declares its own copies of GLib's and GIO's types and
/// functions (it loads libgio at run time and builds without GLib's headers). This holds them to
/// the real headers, as SecretServiceABITests does for the client's shim.
@Suite("Secret Service provider C shim")
struct SecretServiceProviderABITests {
    @Test("the shim's copies of GLib and GIO declarations match the real headers")
    func declarationsMatchHeaders() throws {
        _ = try ABICheck.run(Self.checkProgram, package: "gio-2.0", shim: "CVaultBus")
    }

    /// A C program that fails to compile if a copied declaration differs from the real one.
    static let checkProgram = """
        #include <gio/gio.h>
        #include <stddef.h>
        #define CVAULTBUS_ABI_CHECK 1
        #include "gio_abi.h"

        #define SAME(a, b) _Static_assert((a) == (b), #a " == " #b);
        #define COMPATIBLE(a, b) _Static_assert(__builtin_types_compatible_p(a, b), #a " ~ " #b);
        #define LAYOUT(ours, theirs, field) \\
            SAME(offsetof(ours, field), offsetof(theirs, field)) \\
            SAME(sizeof(((ours *)0)->field), sizeof(((theirs *)0)->field))
        #define FIELD_TYPE(ours, field, type) COMPATIBLE(__typeof__(((ours *)0)->field), type)

        SAME(sizeof(CVaultBus_GErrorLayout), sizeof(GError))
        LAYOUT(CVaultBus_GErrorLayout, GError, domain)
        LAYOUT(CVaultBus_GErrorLayout, GError, code)
        LAYOUT(CVaultBus_GErrorLayout, GError, message)

        SAME(sizeof(CVaultBus_GDBusInterfaceInfoLayout), sizeof(GDBusInterfaceInfo))
        LAYOUT(CVaultBus_GDBusInterfaceInfoLayout, GDBusInterfaceInfo, ref_count)
        LAYOUT(CVaultBus_GDBusInterfaceInfoLayout, GDBusInterfaceInfo, name)
        LAYOUT(CVaultBus_GDBusInterfaceInfoLayout, GDBusInterfaceInfo, methods)
        LAYOUT(CVaultBus_GDBusInterfaceInfoLayout, GDBusInterfaceInfo, signals)
        LAYOUT(CVaultBus_GDBusInterfaceInfoLayout, GDBusInterfaceInfo, properties)
        LAYOUT(CVaultBus_GDBusInterfaceInfoLayout, GDBusInterfaceInfo, annotations)
        SAME(sizeof(CVaultBus_GDBusNodeInfoLayout), sizeof(GDBusNodeInfo))
        LAYOUT(CVaultBus_GDBusNodeInfoLayout, GDBusNodeInfo, ref_count)
        LAYOUT(CVaultBus_GDBusNodeInfoLayout, GDBusNodeInfo, path)
        LAYOUT(CVaultBus_GDBusNodeInfoLayout, GDBusNodeInfo, interfaces)
        LAYOUT(CVaultBus_GDBusNodeInfoLayout, GDBusNodeInfo, nodes)
        LAYOUT(CVaultBus_GDBusNodeInfoLayout, GDBusNodeInfo, annotations)

        SAME(sizeof(CVaultBus_GDBusInterfaceVTableLayout), sizeof(GDBusInterfaceVTable))
        LAYOUT(CVaultBus_GDBusInterfaceVTableLayout, GDBusInterfaceVTable, method_call)
        LAYOUT(CVaultBus_GDBusInterfaceVTableLayout, GDBusInterfaceVTable, get_property)
        LAYOUT(CVaultBus_GDBusInterfaceVTableLayout, GDBusInterfaceVTable, set_property)
        FIELD_TYPE(CVaultBus_GDBusInterfaceVTableLayout, method_call, GDBusInterfaceMethodCallFunc)
        FIELD_TYPE(CVaultBus_GDBusInterfaceVTableLayout, get_property, GDBusInterfaceGetPropertyFunc)
        FIELD_TYPE(CVaultBus_GDBusInterfaceVTableLayout, set_property, GDBusInterfaceSetPropertyFunc)
        SAME(sizeof(CVaultBus_GDBusSubtreeVTableLayout), sizeof(GDBusSubtreeVTable))
        LAYOUT(CVaultBus_GDBusSubtreeVTableLayout, GDBusSubtreeVTable, enumerate)
        LAYOUT(CVaultBus_GDBusSubtreeVTableLayout, GDBusSubtreeVTable, introspect)
        LAYOUT(CVaultBus_GDBusSubtreeVTableLayout, GDBusSubtreeVTable, dispatch)
        FIELD_TYPE(CVaultBus_GDBusSubtreeVTableLayout, enumerate, GDBusSubtreeEnumerateFunc)
        FIELD_TYPE(CVaultBus_GDBusSubtreeVTableLayout, introspect, GDBusSubtreeIntrospectFunc)
        FIELD_TYPE(CVaultBus_GDBusSubtreeVTableLayout, dispatch, GDBusSubtreeDispatchFunc)

        SAME(CVAULTBUS_G_BUS_TYPE_SESSION, G_BUS_TYPE_SESSION)
        SAME(CVAULTBUS_G_DBUS_CALL_FLAGS_NONE, G_DBUS_CALL_FLAGS_NONE)
        SAME(CVAULTBUS_G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES, G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES)
        SAME(CVAULTBUS_G_CONNECT_DEFAULT, 0)

        COMPATIBLE(CVAULTBUS_STANDIN_gboolean, gboolean)
        COMPATIBLE(CVAULTBUS_STANDIN_guint, guint)
        COMPATIBLE(CVAULTBUS_STANDIN_guint32, guint32)
        COMPATIBLE(CVAULTBUS_STANDIN_guint64, guint64)
        COMPATIBLE(CVAULTBUS_STANDIN_gulong, gulong)
        COMPATIBLE(CVAULTBUS_STANDIN_gsize, gsize)
        COMPATIBLE(CVAULTBUS_STANDIN_gint, gint)
        COMPATIBLE(CVAULTBUS_STANDIN_GQuark, GQuark)
        COMPATIBLE(CVAULTBUS_STANDIN_GBusType, GBusType)
        COMPATIBLE(CVAULTBUS_STANDIN_GDBusCallFlags, GDBusCallFlags)
        COMPATIBLE(CVAULTBUS_STANDIN_GDBusSubtreeFlags, GDBusSubtreeFlags)
        COMPATIBLE(CVAULTBUS_STANDIN_GConnectFlags, GConnectFlags)

        // Initialising a pointer of our type with the real function: any difference in a
        // parameter or the result is an incompatible-pointer-types error (with -Werror).
        #define PROTOTYPE(ret, name, params) \\
            __attribute__((unused)) static ret (*const check_##name) params = &name;
        CVAULTBUS_FUNCTIONS(PROTOTYPE)

        int main(void) { return 0; }
        """
}
