// React 19 (its JSX namespace lives in the "react" module): makes
// <ctxguard-toolbar> and <ctxguard-attachment-preview> intrinsic elements
// with their attributes, a ref to the element class, and the React 19 way of
// passing custom events (`onctxguard-change`, since React 19 adds listeners
// for custom-element props named `on…`). Reference it once in a React app:
//   import type {} from "ctxguard-toolbar/react";
import type { DetailedHTMLProps, HTMLAttributes } from "react";
import type {
  AttachmentPreviewEvent,
  CtxguardAttachmentPreviewAttributes,
  CtxguardAttachmentPreviewElement,
  CtxguardToolbarAttributes,
  CtxguardToolbarElement,
  ToolbarChangeEvent,
  ToolbarCompactionEvent,
} from "./ctxguard-toolbar.js";

type ElementProps<E extends HTMLElement, A> = Omit<DetailedHTMLProps<HTMLAttributes<E>, E>, keyof A> &
  A & { class?: string };

declare module "react" {
  namespace JSX {
    interface IntrinsicElements {
      "ctxguard-toolbar": ElementProps<CtxguardToolbarElement, CtxguardToolbarAttributes> & {
        "onctxguard-change"?: (event: ToolbarChangeEvent) => void;
        "onctxguard-compaction"?: (event: ToolbarCompactionEvent) => void;
      };
      "ctxguard-attachment-preview": ElementProps<CtxguardAttachmentPreviewElement, CtxguardAttachmentPreviewAttributes> & {
        "onctxguard-preview"?: (event: AttachmentPreviewEvent) => void;
      };
    }
  }
}
