package responses

import "github.com/tidwall/gjson"

// partFields are the keys of a content part farebox reads; others (such as
// annotations and logprobs on a replayed output_text) are ignored.
type partFields struct {
	typ, text, refusal, imageURL, fileID, detail gjson.Result
	fileURL, fileData, filename                  gjson.Result
}

// parseParts reads the content parts of a message (sub "content") or of a
// function_call_output (sub "output"). Assistant replays may also carry
// output_text and refusal parts.
func parseParts(w where, sub string, v gjson.Result, assistant bool) ([]Part, *Error) {
	parts := make([]Part, 0, 2)
	var err *Error
	j := 0
	v.ForEach(func(_, el gjson.Result) bool {
		var part Part
		part, err = parsePart(w.in(sub, j), el, assistant)
		parts = append(parts, part)
		j++
		return err == nil
	})
	return parts, err
}

func parsePart(w where, v gjson.Result, assistant bool) (Part, *Error) {
	if !v.IsObject() {
		return Part{}, errType(w.at(""), "an object", v)
	}
	var f partFields
	v.ForEach(func(k, val gjson.Result) bool {
		switch k.Str {
		case "type":
			f.typ = val
		case "text":
			f.text = val
		case "refusal":
			f.refusal = val
		case "image_url":
			f.imageURL = val
		case "file_id":
			f.fileID = val
		case "detail":
			f.detail = val
		case "file_url":
			f.fileURL = val
		case "file_data":
			f.fileData = val
		case "filename":
			f.filename = val
		}
		return true
	})
	typ, err := reqString(w.at, "type", f.typ)
	if err != nil {
		return Part{}, err
	}
	p := Part{Type: typ}
	switch typ {
	case "input_text":
		p.Text, err = textField(w, "text", f.text)
	case "input_image":
		err = parseImagePart(w, &f, &p)
	case "input_file":
		err = parseFilePart(w, &f, &p)
	case "output_text":
		if !assistant {
			return p, errValue(w.at("type"), typ, "input_text", "input_image", "input_file")
		}
		p.Text, err = textField(w, "text", f.text)
	case "refusal":
		if !assistant {
			return p, errValue(w.at("type"), typ, "input_text", "input_image", "input_file")
		}
		p.Text, err = textField(w, "refusal", f.refusal)
	default:
		if assistant {
			return p, errValue(w.at("type"), typ, "input_text", "input_image", "input_file", "output_text", "refusal")
		}
		return p, errValue(w.at("type"), typ, "input_text", "input_image", "input_file")
	}
	return p, err
}

// textField reads a required string that may be empty.
func textField(w where, field string, v gjson.Result) (string, *Error) {
	switch v.Type {
	case gjson.String:
		return v.Str, nil
	case gjson.Null:
		return "", errMissing(w.at(field))
	}
	return "", errType(w.at(field), "a string", v)
}

func parseImagePart(w where, f *partFields, p *Part) *Error {
	var err *Error
	if p.ImageURL, err = optField(w, "image_url", f.imageURL); err != nil {
		return err
	}
	if f.fileID.Type != gjson.Null {
		return errFileID(w.at("file_id"))
	}
	if p.ImageURL == "" {
		return Invalid(w.at(""), "missing_required_parameter", "Invalid '%s': an input_image needs 'image_url' (a URL or a data: URL).", w.at(""))
	}
	if f.detail.Type == gjson.Null {
		return nil
	}
	return optEnum(w.at("detail"), f.detail, &p.Detail, "low", "high", "auto")
}

func parseFilePart(w where, f *partFields, p *Part) *Error {
	var err *Error
	if f.fileID.Type != gjson.Null {
		return errFileID(w.at("file_id"))
	}
	if p.FileURL, err = optField(w, "file_url", f.fileURL); err != nil {
		return err
	}
	if p.FileData, err = optField(w, "file_data", f.fileData); err != nil {
		return err
	}
	if p.Filename, err = optField(w, "filename", f.filename); err != nil {
		return err
	}
	if p.FileURL == "" && p.FileData == "" {
		return Invalid(w.at(""), "missing_required_parameter", "Invalid '%s': an input_file needs one of 'file_url' or 'file_data'.", w.at(""))
	}
	return nil
}

// optField reads an optional string field of a part.
func optField(w where, field string, v gjson.Result) (string, *Error) {
	switch v.Type {
	case gjson.Null:
		return "", nil
	case gjson.String:
		return v.Str, nil
	}
	return "", errType(w.at(field), "a string", v)
}
